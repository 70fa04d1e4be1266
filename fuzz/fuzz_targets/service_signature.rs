#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lendhub_fuzz::bound::run(
    lendhub_fuzz::service_signature,
    data
));
