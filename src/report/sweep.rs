//! A sweep ([`crate::sweep::Sweep`]) as a text table and as CSV: the CLI prints both, and the
//! page downloads the same CSV (through wasm), so the two are byte-identical.

use super::table::aligned;
use crate::scenario::sweep::Axis;
use crate::sweep::{Sweep, SweepPoint};
use crate::units::UnitSystem;

fn what(axis: Axis) -> &'static str {
    match axis {
        Axis::Compute => "every device speed",
        Axis::Bandwidth => "every link bandwidth",
        Axis::Latency => "every link latency",
    }
}

/// The points of one pair after another (pairs in the first factor's row order), each pair's
/// factors in the sweep's order: so a pair's trend reads down the table.
fn by_pair(s: &Sweep) -> Vec<&SweepPoint> {
    let per_factor = s.points.len() / s.factors.len().max(1);
    (0..per_factor)
        .flat_map(|pair| {
            (0..s.factors.len()).filter_map(move |f| s.points.get(f * per_factor + pair))
        })
        .collect()
}

/// The sweep as an aligned table: one line per pair and factor, times with units.
pub fn table(s: &Sweep) -> String {
    let u = UnitSystem {
        physical: s.physical,
    };
    let orders = s
        .points
        .iter()
        .any(|p| p.link_order != s.points[0].link_order);
    let plans = s.points.iter().any(|p| p.plan.is_some());
    let mut header: Vec<String> = vec!["placer".into(), "scheduler".into()];
    if orders {
        header.push("link order".into());
    }
    header.push(format!("{} x", s.axis.name()));
    header.extend(["makespan", "std", "min", "max", "/bound"].map(String::from));
    if plans {
        header.push("plan".into());
    }
    let mut rows = vec![header];
    for p in by_pair(s) {
        let mut row = vec![p.placer.clone(), p.scheduler.clone()];
        if orders {
            row.push(p.link_order.clone());
        }
        row.push(p.factor.to_string());
        if let Some(e) = &p.error {
            row.push(format!("error: {e}"));
            rows.push(row);
            continue;
        }
        row.extend([
            u.time(p.makespan),
            u.time(p.makespan_std),
            u.time(p.makespan_min),
            u.time(p.makespan_max),
            if p.lower_bound > 0.0 {
                format!("{:.2}", p.makespan / p.lower_bound)
            } else {
                String::new()
            },
        ]);
        if plans {
            row.push(p.plan.as_ref().map_or(String::new(), |q| q.status.clone()));
        }
        rows.push(row);
    }
    let mut out = format!(
        "{}: makespan against the {} factor (x {}), {} factors{}\n",
        s.graph,
        s.axis.name(),
        what(s.axis),
        s.factors.len(),
        if s.physical {
            ""
        } else {
            " (abstract units: times in work / speed)"
        }
    );
    // Names and the plan's status (last) flush left, numbers flush right.
    let (names, status) = (if orders { 3 } else { 2 }, rows[0].len() - 1);
    out.push_str(&aligned(&rows, |i| i < names || (plans && i == status)));
    out
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The sweep as CSV, one line per factor and pair (the points' order), numbers at full
/// precision (shortest text that reads back to the same bits), the unit in every column name
/// (`_s` seconds or `_units` abstract time).
pub fn csv(s: &Sweep) -> String {
    let t = UnitSystem {
        physical: s.physical,
    }
    .time_unit();
    let mut out = format!(
        "{}_factor,placer,scheduler,link_order,makespan_{t},makespan_std_{t},makespan_min_{t},\
         makespan_max_{t},lower_bound_{t},plan_objective_{t},plan_bound_{t},plan_bound_scope,\
         plan_status,error\n",
        s.axis.name()
    );
    let opt = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
    for p in &s.points {
        let numbers = if p.error.is_some() {
            vec![String::new(); 5]
        } else {
            [
                p.makespan,
                p.makespan_std,
                p.makespan_min,
                p.makespan_max,
                p.lower_bound,
            ]
            .map(|x| x.to_string())
            .to_vec()
        };
        let plan = p.plan.as_ref();
        let scope = plan.map_or(String::new(), |q| {
            serde_json::to_value(q.bound_scope)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default()
        });
        let cells: Vec<String> = [
            p.factor.to_string(),
            field(&p.placer),
            field(&p.scheduler),
            field(&p.link_order),
        ]
        .into_iter()
        .chain(numbers)
        .chain([
            opt(plan.map(|q| q.objective)),
            opt(plan.and_then(|q| q.bound)),
            scope,
            field(plan.map_or("", |q| q.status.as_str())),
            field(p.error.as_deref().unwrap_or("")),
        ])
        .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::PlanSummary;
    use crate::plan::BoundScope;

    fn point(factor: f64, placer: &str, makespan: f64) -> SweepPoint {
        SweepPoint {
            factor,
            placer: placer.into(),
            scheduler: "fifo".into(),
            link_order: "fifo".into(),
            makespan,
            makespan_std: 0.0,
            makespan_min: makespan,
            makespan_max: makespan,
            lower_bound: 0.5 * makespan,
            plan: None,
            error: None,
        }
    }

    fn sweep(physical: bool) -> Sweep {
        let mut planned = point(1.0, "pesto", 0.002);
        planned.scheduler = "given".into();
        planned.plan = Some(PlanSummary {
            objective: 0.002,
            bound: Some(0.001),
            bound_scope: BoundScope::Instance,
            status: "best found after 10 schedules simulated".into(),
            coarse_vertices: None,
            history: Vec::new(),
        });
        let mut failed = point(2.0, "pesto", 0.0);
        failed.scheduler = "given".into();
        failed.error = Some("seed 0: no room, on \"x\"".into());
        Sweep {
            axis: Axis::Compute,
            factors: vec![1.0, 2.0],
            graph: "g".into(),
            physical,
            points: vec![
                point(1.0, "single", 0.004),
                planned,
                point(2.0, "single", 0.002),
                failed,
            ],
        }
    }

    #[test]
    fn csv_has_units_in_its_header_and_full_precision_numbers() {
        let text = csv(&sweep(true));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "compute_factor,placer,scheduler,link_order,makespan_s,makespan_std_s,makespan_min_s,\
             makespan_max_s,lower_bound_s,plan_objective_s,plan_bound_s,plan_bound_scope,\
             plan_status,error"
        );
        assert_eq!(
            lines[1],
            "1,single,fifo,fifo,0.004,0,0.004,0.004,0.002,,,,,"
        );
        assert_eq!(
            lines[2],
            "1,pesto,given,fifo,0.002,0,0.002,0.002,0.001,0.002,0.001,instance,best found after 10 schedules simulated,"
        );
        assert_eq!(
            lines[4],
            "2,pesto,given,fifo,,,,,,,,,,\"seed 0: no room, on \"\"x\"\"\""
        );
        assert!(csv(&sweep(false))
            .starts_with("compute_factor,placer,scheduler,link_order,makespan_units,"));
    }

    #[test]
    fn the_table_reads_each_pair_down_its_factors_with_units() {
        let text = table(&sweep(true));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with(
            "g: makespan against the compute factor (x every device speed), 2 factors"
        ));
        assert!(lines[1].starts_with("placer") && lines[1].ends_with("plan"));
        assert!(lines[2].starts_with("single") && lines[2].contains("4.000 ms"));
        assert!(lines[3].starts_with("single") && lines[3].contains("2.000 ms"));
        assert!(lines[4].contains("best found after 10 schedules simulated"));
        assert!(lines[5].contains("error: seed 0: no room"));
        let abstract_ = table(&sweep(false));
        assert!(abstract_.contains("(abstract units: times in work / speed)"));
        assert!(abstract_.contains(" 0.004000 "));
    }
}
