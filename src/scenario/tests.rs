//! The scenario's own tests: parsing, realizing seeds, what-if and randomization.

use super::*;

#[test]
fn parses_defaults_and_rejects_bad_names() {
    let s = Scenario::from_json(
        r#"{"graph":{"bundled":"vgg19_layers"},"cluster":{"generate":{"devices":4,"speed":[1,2],"bandwidth":[1,2]}}}"#,
    )
    .unwrap();
    assert_eq!(s.seeds, 1);
    assert_eq!(
        s.placers.len(),
        crate::place::PLACERS.len() - crate::place::OPT_IN.len()
    );
    let e = Scenario::from_json(
        r#"{"graph":{"bundled":"x"},"cluster":{"file":"c.json"},"placers":["nope"]}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("unknown placer 'nope'"), "{e}");
    let e = Scenario::from_json(r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"},"seeds":0}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("seeds"), "{e}");
    let e = Scenario::from_json(r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"},"bogus":1}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bogus"), "{e}");
    let e = Scenario::from_json(
        r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"},"params":{"zzz.a":1}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("zzz.a"), "{e}");
    // A typo in a parameter of a strategy the scenario does not run is still an error.
    let e = Scenario::from_json(
        r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"},"schedulers":["fifo"],"params":{"msr.deltaa":1}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("msr has no parameter 'deltaa'"), "{e}");
    // The footprint rule: an unknown one names the field and the rules; a known one
    // reads and writes back, and the default is not written.
    let e = Scenario::from_json(
        r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"},"footprint":"inputs"}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("footprint") && e.contains("inputs_outputs"),
        "{e}"
    );
    let s = Scenario::from_json(
        r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"},"footprint":"inputs_outputs"}"#,
    )
    .unwrap();
    assert_eq!(s.footprint, Footprint::InputsOutputs);
    let text = serde_json::to_string(&s).unwrap();
    assert!(text.contains(r#""footprint":"inputs_outputs""#), "{text}");
    let d = Scenario::from_json(r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"}}"#).unwrap();
    assert!(!serde_json::to_string(&d).unwrap().contains("footprint"));
    // Redrawn amounts obey the graph's limit (1e30) too.
    let e = Scenario::from_json(
        r#"{"graph":{"bundled":"x"},"cluster":{"file":"c"},"randomize":{"bytes":[1,1e300]}}"#,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("randomize.bytes must be a range"), "{e}");
}

#[test]
fn memory_fraction_is_relative_to_the_realized_graph() {
    let g = Graph::from_json(
        r#"{"nodes":[{"id":"a","cost":1,"mem":10},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":30}]}"#,
        "g",
    )
    .unwrap();
    let mut s = Scenario::from_json(
        r#"{"graph":{"bundled":"g"},"cluster":{"generate":{"devices":3,"speed":[1,2],"bandwidth":[1,2],"memory_fraction":0.5}}}"#,
    )
    .unwrap();
    let r = s.realize(&g, None, 0).unwrap();
    // (10 + 30) / 2
    assert!(r.cluster.devices.iter().all(|d| d.memory == 20.0));
    s.randomize = Some(Randomize {
        cost: None,
        bytes: Some([2.0, 2.0]),
        mem: None,
    });
    let r = s.realize(&g, None, 0).unwrap();
    // (10 + 2) / 2: the redrawn size counts
    assert!(r.cluster.devices.iter().all(|d| d.memory == 6.0));
    s.randomize = Some(Randomize {
        cost: None,
        bytes: None,
        mem: Some([0.0, 0.0]),
    });
    let r = s.realize(&g, None, 0).unwrap();
    // (0 + 30) / 2: tensors only
    assert!(r.cluster.devices.iter().all(|d| d.memory == 15.0));
    assert_eq!(r.overrides.unwrap().mem, vec![0.0, 0.0]);
}

#[test]
fn randomizing_one_quantity_keeps_the_others_and_their_draws() {
    let g = Graph::from_json(
        r#"{"nodes":[{"id":"a","cost":8,"time":{"gpu":3},"mem":4},{"id":"b","cost":1}],"edges":[{"src":"a","dst":"b","bytes":30}]}"#,
        "g",
    )
    .unwrap();
    let mut s = Scenario::from_json(
        r#"{"graph":{"bundled":"g"},"cluster":{"generate":{"devices":3,"speed":[1,2],"bandwidth":[1,2]}},
            "randomize":{"bytes":[1,100]}}"#,
    )
    .unwrap();
    let r = s.realize(&g, None, 0).unwrap();
    let o = r.overrides.as_ref().unwrap();
    assert!(o.cost.is_none(), "costs and time tables stay the graph's");
    assert_eq!(o.mem, vec![4.0, 0.0]);
    let p = crate::model::problem::Problem::with_overrides(&g, &r.cluster, Some(o)).unwrap();
    assert_eq!(p.exec(0, 0), 3.0, "the time table still wins");
    let bytes = o.tensor_bytes.clone();
    // Turning cost randomization on does not change the drawn sizes.
    s.randomize.as_mut().unwrap().cost = Some([1.0, 9.0]);
    let r2 = s.realize(&g, None, 0).unwrap();
    assert_eq!(r2.overrides.as_ref().unwrap().tensor_bytes, bytes);
    // Nor does a latency range change the drawn bandwidths and speeds.
    let mut t = s.clone();
    if let ClusterSource::Generate(spec) = &mut t.cluster {
        spec.latency = [0.0, 1e-3];
    }
    let r3 = t.realize(&g, None, 0).unwrap();
    for a in 0..3 {
        assert_eq!(r3.cluster.devices[a].speed, r2.cluster.devices[a].speed);
        for b in 0..3 {
            assert_eq!(
                r3.cluster.bandwidth(a as u32, b as u32),
                r2.cluster.bandwidth(a as u32, b as u32)
            );
        }
    }
}

#[test]
fn what_if_speeds_scale_time_tables_too() {
    let g = Graph::from_json(
        r#"{"nodes":[{"id":"a","time":{"gpu":3}},{"id":"b","cost":8}]}"#,
        "g",
    )
    .unwrap();
    let c = Cluster::from_json(
        r#"{"devices":[{"id":"x","speed":2},{"id":"y","speed":4}],"bandwidth":1}"#,
        "c",
    )
    .unwrap();
    let mut s = Scenario::from_json(r#"{"graph":{"bundled":"g"},"cluster":{"file":"c"}}"#).unwrap();
    s.what_if.compute = 2.0;
    s.what_if.speeds.insert("y".into(), 16.0);
    let r = s.realize(&g, Some(&c), 0).unwrap();
    let p = crate::model::problem::Problem::new(&g, &r.cluster).unwrap();
    // The compute scale multiplies a set speed too: x: 2 -> 4 is twice as fast -> 3 / 2
    // and 8 / 4; y: 4 -> 16, then x2 -> 32, eight times as fast -> 3 / 8 and 8 / 32.
    assert_eq!(p.exec_row(0), &[1.5, 0.375]);
    assert_eq!(p.exec_row(1), &[2.0, 0.25]);
}
