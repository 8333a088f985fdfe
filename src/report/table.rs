//! Plain-text tables for the terminal.

use crate::compare::Comparison;
use crate::units::UnitSystem;

/// The comparison as an aligned table, best makespan first. Columns for link orders,
/// iterations and TicTac19's ordering metrics appear when the comparison has them.
pub fn comparison(c: &Comparison) -> String {
    let u = c.units();
    let orders = c.scenario.link_order.len() > 1;
    let iterations = c.results.iter().any(|r| r.iteration_time.is_some());
    let ordering = c.results.iter().any(|r| r.ordering.is_some());
    // A placer that bounds its plan (pesto), as the page's plan column: heuristics' plans
    // (heft) claim nothing worth a column.
    let plans = c.results.iter().any(|r| {
        r.plan
            .as_ref()
            .is_some_and(|p| p.bound_scope != crate::plan::BoundScope::None)
    });
    let mut header: Vec<String> = vec!["placer".into(), "scheduler".into()];
    if orders {
        header.push("link order".into());
    }
    header.extend(["makespan".into(), "std".into(), "/bound".into()]);
    if iterations {
        header.extend(["iter p50".into(), "iter p95".into()]);
    }
    if ordering {
        header.extend(["E".into(), "straggler".into()]);
    }
    header.extend([
        "traffic".into(),
        "peak mem".into(),
        "place s".into(),
        "oom".into(),
    ]);
    if plans {
        header.push("plan".into());
    }
    let mut rows: Vec<Vec<String>> = vec![header];
    let mut results: Vec<_> = c.results.iter().collect();
    results.sort_by(|a, b| {
        (a.error.is_some(), a.makespan)
            .partial_cmp(&(b.error.is_some(), b.makespan))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    for r in results {
        let mut row = vec![r.placer.clone(), r.scheduler.clone()];
        if orders {
            row.push(r.link_order.clone());
        }
        if let Some(e) = &r.error {
            row.push(format!("error: {e}"));
            rows.push(row);
            continue;
        }
        let peak = r.devices.iter().map(|d| d.peak_memory).fold(0.0, f64::max);
        row.extend([
            u.time(r.makespan),
            u.time(r.makespan_std),
            format!("{:.2}", r.gap),
        ]);
        if iterations {
            match &r.iteration_time {
                Some(it) => row.extend([u.time(it.p50), u.time(it.p95)]),
                None => row.extend(["".into(), "".into()]),
            }
        }
        if ordering {
            match &r.ordering {
                Some(o) => row.extend([
                    o.efficiency.map_or("n/a".into(), |e| format!("{e:.3}")),
                    format!("{:.1}%", 100.0 * o.straggler.mean),
                ]),
                None => row.extend(["".into(), "".into()]),
            }
        }
        row.extend([
            u.bytes(r.traffic_bytes),
            u.bytes(peak),
            format!("{:.4}", r.placement_seconds),
            if r.oom { "OOM".into() } else { "".into() },
        ]);
        if plans {
            row.push(plan_cell(r, u));
        }
        rows.push(row);
    }
    let mut out = format!(
        "{}: {} nodes, {} edges; {} seed(s){}; bounds: critical path {}, work {}{}\n",
        c.graph.name,
        c.graph.nodes,
        c.graph.edges,
        c.scenario.seeds,
        if c.scenario.iterations > 1 {
            format!(" x {} iterations", c.scenario.iterations)
        } else {
            String::new()
        },
        u.time(c.critical_path_bound),
        u.time(c.work_bound),
        u.note()
    );
    let (names, last) = (if orders { 3 } else { 2 }, rows[0].len() - 1);
    out.push_str(&aligned(&rows, |i| i < names || (plans && i == last)));
    for note in &c.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// A row's plan: its status (pesto.md §5.6), and its own bound on the instance with the gap
/// to it, as the page's plan column says it.
fn plan_cell(r: &crate::compare::PairResult, u: UnitSystem) -> String {
    let Some(p) = &r.plan else {
        return String::new();
    };
    match p.bound {
        Some(b) if p.bound_scope == crate::plan::BoundScope::Instance && b > 0.0 => {
            format!(
                "{}; bound {}, gap {:.2}x",
                p.status,
                u.time(b),
                r.makespan / b
            )
        }
        _ => p.status.clone(),
    }
}

/// Rows as aligned columns (the first row the header): the columns `left(i)` says flush left
/// (names), the others flush right (numbers); a row shorter than the header (an error
/// message) is printed as it is and sets no width.
pub fn aligned(rows: &[Vec<String>], left: impl Fn(usize) -> bool) -> String {
    let cols = rows.first().map_or(0, Vec::len);
    let mut width = vec![0; cols];
    for row in rows {
        if row.len() == cols {
            for (i, cell) in row.iter().enumerate() {
                width[i] = width[i].max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(i, cell)| {
                if left(i) || row.len() != cols {
                    format!("{cell:<w$}", w = width[i])
                } else {
                    format!("{cell:>w$}", w = width[i])
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}
