//! The public ring: enquiries with their mail, and CMS pages.

use lendhub_store::*;

use crate::support::*;

/// Enquiries with their queued notification, the mail outbox's claim, lease,
/// retry and give-up, and CMS pages.
#[tokio::test]
async fn enquiries_mail_outbox_and_cms_pages() {
    let db = Database::fresh().await;
    let (a, b) = (db.open().await, db.open().await);
    let enquiry = |n: u32| EnquiryRecord {
        id: format!("enq_{n}"),
        form: "contact".into(),
        dept: n.is_multiple_of(2).then(|| "support".into()),
        fields: r#"{"consent":"yes"}"#.into(),
        status: "new".into(),
        created_at_ms: 100,
    };
    let mail = |n: u32, due_ms| MailRecord {
        id: format!("mail_{n}"),
        enquiry_id: Some(format!("enq_{n}")),
        recipient: "support@example.test".into(),
        subject: "New enquiry".into(),
        body: "hello".into(),
        due_ms,
    };
    a.insert_enquiry(enquiry(1), mail(1, 100)).await.unwrap();
    a.insert_enquiry(enquiry(2), mail(2, 5_000)).await.unwrap();
    assert_eq!(b.enquiry("enq_1").await.unwrap(), Some(enquiry(1)));
    assert_eq!(
        b.enquiry("enq_2").await.unwrap().unwrap().dept.as_deref(),
        Some("support")
    );
    assert_eq!(b.enquiry("enq_9").await.unwrap(), None);
    assert!(
        a.insert_enquiry(enquiry(1), mail(3, 100)).await.is_err(),
        "an id is stored once"
    );
    assert_eq!(
        a.mail_status("enq_3").await.unwrap(),
        None,
        "a failed insert leaves no mail behind"
    );

    let claim = |due_before_ms, real_now_ms| Lease {
        holder: "worker".into(),
        due_before_ms,
        real_now_ms,
        lease_until_ms: real_now_ms + 60_000,
        limit: 10,
    };
    let claimed = a.claim_mail(&claim(1_000, 0)).await.unwrap();
    assert_eq!(claimed.len(), 1, "only what is due");
    assert_eq!(claimed[0].mail, mail(1, 100));
    assert_eq!((claimed[0].attempts, claimed[0].first_due_ms), (0, 100));
    assert!(
        b.claim_mail(&claim(1_000, 1)).await.unwrap().is_empty(),
        "leased to the first worker"
    );
    b.finish_mail(MailResult::Failed {
        id: "mail_1".into(),
        error: "connection refused".into(),
        retry_at_ms: Some(2_000),
    })
    .await
    .unwrap();
    let status = a.mail_status("enq_1").await.unwrap().unwrap();
    assert_eq!(
        (
            status.state.as_str(),
            status.attempts,
            status.last_error.as_deref()
        ),
        ("pending", 1, Some("connection refused"))
    );
    assert!(a.claim_mail(&claim(1_999, 2)).await.unwrap().is_empty());
    let again = b.claim_mail(&claim(2_000, 2)).await.unwrap();
    assert_eq!((again.len(), again[0].attempts), (1, 1));
    a.finish_mail(MailResult::Sent {
        id: "mail_1".into(),
        at_ms: 2_001,
    })
    .await
    .unwrap();
    assert_eq!(b.mail_status("enq_1").await.unwrap().unwrap().state, "sent");
    // A lease that lapsed (the worker died) is claimed again.
    assert_eq!(a.claim_mail(&claim(5_000, 10)).await.unwrap().len(), 1);
    assert_eq!(b.claim_mail(&claim(5_000, 70_011)).await.unwrap().len(), 1);
    b.finish_mail(MailResult::Failed {
        id: "mail_2".into(),
        error: "gave up".into(),
        retry_at_ms: None,
    })
    .await
    .unwrap();
    assert_eq!(
        a.mail_status("enq_2").await.unwrap().unwrap().state,
        "failed"
    );
    assert!(
        a.claim_mail(&claim(i64::MAX, i64::MAX - 60_000))
            .await
            .unwrap()
            .is_empty()
    );

    assert_eq!(
        a.put_cms_page(CmsPageEdit {
            key: "about".into(),
            title: "About".into(),
            body: "# About".into(),
            published: false,
            at_ms: 1
        })
        .await
        .unwrap(),
        1
    );
    assert_eq!(
        b.put_cms_page(CmsPageEdit {
            key: "about".into(),
            title: "About us".into(),
            body: "# Us".into(),
            published: true,
            at_ms: 2
        })
        .await
        .unwrap(),
        2
    );
    a.put_cms_page(CmsPageEdit {
        key: "faq".into(),
        title: "FAQ".into(),
        body: "q?".into(),
        published: true,
        at_ms: 3,
    })
    .await
    .unwrap();
    let page = a.cms_page("about").await.unwrap().unwrap();
    assert_eq!(
        (
            page.title.as_str(),
            page.body.as_str(),
            page.published,
            page.version,
            page.updated_at_ms
        ),
        ("About us", "# Us", true, 2, 2)
    );
    assert_eq!(b.cms_page("none").await.unwrap(), None);
    let keys: Vec<String> = b
        .list_cms_pages()
        .await
        .unwrap()
        .into_iter()
        .map(|p| p.key)
        .collect();
    assert_eq!(keys, ["about", "faq"]);
}
