//! Plain-text tables for the terminal.

use crate::compare::Comparison;

/// Formats a number compactly: 4 significant digits, scientific when very large or small.
pub fn num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if !(1e-3..1e6).contains(&a) {
        format!("{x:.3e}")
    } else {
        let digits = (3 - libm::floor(libm::log10(a)) as i32).max(0) as usize;
        format!("{x:.digits$}")
    }
}

/// The comparison as an aligned table, best makespan first.
pub fn comparison(c: &Comparison) -> String {
    let mut rows: Vec<Vec<String>> = vec![vec![
        "placer".into(),
        "scheduler".into(),
        "makespan".into(),
        "std".into(),
        "/bound".into(),
        "traffic".into(),
        "peak mem".into(),
        "place s".into(),
        "oom".into(),
    ]];
    let mut results: Vec<_> = c.results.iter().collect();
    results.sort_by(|a, b| {
        (a.error.is_some(), a.makespan)
            .partial_cmp(&(b.error.is_some(), b.makespan))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for r in results {
        if let Some(e) = &r.error {
            rows.push(vec![
                r.placer.clone(),
                r.scheduler.clone(),
                format!("error: {e}"),
            ]);
            continue;
        }
        let peak = r.devices.iter().map(|d| d.peak_memory).fold(0.0, f64::max);
        rows.push(vec![
            r.placer.clone(),
            r.scheduler.clone(),
            num(r.makespan),
            num(r.makespan_std),
            format!("{:.2}", r.gap),
            num(r.traffic_bytes),
            num(peak),
            format!("{:.4}", r.placement_seconds),
            if r.oom { "OOM".into() } else { "".into() },
        ]);
    }
    let cols = rows[0].len();
    let mut width = vec![0; cols];
    for row in &rows {
        if row.len() == cols {
            for (i, cell) in row.iter().enumerate() {
                width[i] = width[i].max(cell.chars().count());
            }
        }
    }
    let mut out = format!(
        "{}: {} nodes, {} edges; {} seed(s); bounds: critical path {}, work {}\n",
        c.graph.name,
        c.graph.nodes,
        c.graph.edges,
        c.scenario.seeds,
        num(c.critical_path_bound),
        num(c.work_bound)
    );
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if i < 2 || row.len() != cols {
                    format!("{cell:<w$}", w = width[i])
                } else {
                    format!("{cell:>w$}", w = width[i])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    for note in &c.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}
