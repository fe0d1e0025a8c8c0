//! Every experiment of docs/evaluation.md runs end to end at its quick scale and produces a table with one row
//! per run, a CSV file with the same rows, and no corrupted data.

use metaroce_sim::eval::{self, Scale, EXPERIMENTS};
use std::path::Path;

#[test]
fn every_experiment_runs_at_quick_scale() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/eval");
    for exp in EXPERIMENTS.iter() {
        let runs = eval::run(exp, &dir, Scale::Quick, &mut |_, _, _| {}, &mut |_| {})
            .unwrap_or_else(|e| panic!("experiment {}: {e}", exp.id));
        assert_eq!(runs.len(), (exp.runs)(Scale::Quick).len(), "{}", exp.id);
        for r in &runs {
            assert_eq!(r.summary.data_errors, 0, "{} {}", exp.id, r.spec.label);
            assert!(
                !r.results.flows.is_empty(),
                "{} {}: no flow",
                exp.id,
                r.spec.label
            );
        }
        let rep = (exp.report)(&runs);
        let table_rows = rep
            .markdown
            .lines()
            .take_while(|l| l.starts_with('|'))
            .count();
        assert_eq!(table_rows, runs.len() + 2, "{}: table rows", exp.id);
        assert_eq!(
            rep.csv.lines().count(),
            runs.len() + 1,
            "{}: csv rows",
            exp.id
        );
    }
}

#[test]
fn every_experiment_has_its_block_in_the_evaluation_document() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/evaluation.md"),
    )
    .expect("docs/evaluation.md");
    for exp in EXPERIMENTS.iter() {
        let spliced = eval::splice(&doc, exp.id, "x").unwrap_or_else(|e| panic!("{}: {e}", exp.id));
        assert_ne!(spliced, doc, "{}", exp.id);
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scenarios/eval")
                .join(exp.file)
                .exists(),
            "{}: scenario file",
            exp.id
        );
    }
}
