//! Every query a request path runs reaches its rows through an index, on
//! every backend: asserted from the backend's own plan.

use lendhub_store::plans::request_path_queries;

use crate::support::store;

#[tokio::test]
async fn request_path_queries_use_an_index() {
    let (_store, db) = store().await;
    let mut failures = Vec::new();
    for query in request_path_queries() {
        if query.only.is_some_and(|only| only != db.backend()) {
            continue;
        }
        let plan = db.explain(query.sql, &query.bind).await;
        let text = plan.join("\n");
        // SQLite scans a subquery's rows as it makes them (`CO-ROUTINE o`,
        // then `SCAN o`): that reads no table.
        let subqueries: Vec<&str> = plan
            .iter()
            .filter_map(|line| line.strip_prefix("CO-ROUTINE "))
            .collect();
        let full_scan = plan.iter().any(|line| {
            // SQLite: `SCAN t` without an index; PostgreSQL: `Seq Scan on t`.
            (line.starts_with("SCAN ")
                && !line.contains("INDEX")
                && !line.contains("CONSTANT ROW")
                && !subqueries.contains(&line["SCAN ".len()..].trim()))
                || line.contains("Seq Scan")
        });
        let sorted = plan
            .iter()
            .any(|line| line.contains("TEMP B-TREE FOR ORDER BY"));
        if full_scan {
            failures.push(format!("{}: reads the whole table\n{text}", query.name));
        } else if query.ordered_by_index && sorted {
            failures.push(format!(
                "{}: sorts instead of reading in index order\n{text}",
                query.name
            ));
        } else if plan.is_empty() {
            failures.push(format!("{}: no plan", query.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
