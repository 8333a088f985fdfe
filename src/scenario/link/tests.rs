//! The link codec's tests: round trips, every kind of graph and cluster, page views, atoms
//! and bad links. `tests/links.rs` holds the golden link texts.

use std::collections::BTreeMap;

use serde_json::Value;

use super::atoms::inflate;
use super::*;
use crate::model::cluster::ClusterGen;
use crate::model::problem::Footprint;
use crate::model::LinkModel;
use crate::scenario::defaults::{default_devices, defaults, DEFAULT_BW, DEFAULT_LAT};
use crate::scenario::{Randomize, Replication, WhatIf};

fn round_trip(s: &Scenario) -> String {
    let f = fragment(s).unwrap();
    let back = parse_fragment(&f).unwrap();
    assert_eq!(&back, s, "fragment {f}");
    assert_eq!(fragment(&back).unwrap(), f);
    f
}

#[test]
fn a_replica_link_is_version_2_and_round_trips() {
    let mut s = defaults();
    s.links = LinkModel::Fcfs;
    s.link_order = vec!["random".into(), "tio".into(), "tao".into()];
    s.iterations = 200;
    s.replica = Some(Replication {
        workers: vec!["w0".into(), "w 1".into()],
        ps: vec!["ps0".into()],
        forward_target: Some("loss/op".into()),
        aggregate: true,
        param_ops: Some(vec!["VarHandleOp".into()]),
        params_from_sources: true,
        balance: Some(0.9),
    });
    let f = round_trip(&s);
    assert!(f.starts_with("#v=2&"), "{f}");
    assert!(f.contains("&order=random,tio,tao&iterations=200&replica.workers=w0,w%201&replica.ps=ps0&replica.target=loss%2Fop"), "{f}");
    // One order and one iteration without a replica is still a version 1 link.
    s.replica = None;
    s.iterations = 1;
    s.link_order = vec!["tao".into()];
    assert!(round_trip(&s).starts_with("#v=1&"));
    let e = parse_fragment("v=2&replica.balance=1")
        .unwrap_err()
        .to_string();
    assert!(e.contains("replica options without replica.workers"), "{e}");
    let e = parse_fragment("v=3").unwrap_err().to_string();
    assert!(e.contains("v=1 to v=2"), "{e}");
}

#[test]
fn defaults_write_only_the_version() {
    assert_eq!(round_trip(&defaults()), "#v=1");
    assert_eq!(parse_fragment("v=1").unwrap(), defaults());
}

#[test]
fn generated_cluster_and_strategies_round_trip() {
    let mut s = defaults();
    s.graph = GraphSource::Bundled("vgg19_layers".into());
    s.cluster = ClusterSource::Generate(ClusterGen {
        devices: 50,
        speed: [10.0, 100.0],
        memory: Some(1.6e10),
        memory_fraction: Some(0.25),
        bandwidth: [10.0, 60.0],
        latency: [0.0, 0.0],
        kinds: vec!["cpu".into(), "gpu".into()],
    });
    s.placers = vec!["hash".into()];
    s.seeds = 10;
    s.seed = 12345;
    s.links = LinkModel::Fcfs;
    s.randomize = Some(Randomize {
        cost: Some([1.0, 100.0]),
        bytes: Some([1.0, 100.0]),
        mem: Some([0.0, 5.0]),
    });
    s.what_if = WhatIf {
        compute: 2.0,
        bandwidth: 0.5,
        latency: 4.0,
        speeds: BTreeMap::from([("d1".to_string(), 42.5)]),
    };
    let f = round_trip(&s);
    assert_eq!(
        f,
        "#v=1&graph=vgg19_layers&devices=50&speed=10..100&bandwidth=10..60&latency=0..0\
         &memory=1.6e10&memfraction=0.25&kinds=cpu,gpu&placers=hash&links=fcfs&seeds=10\
         &seed=12345&randcost=1..100&randbytes=1..100&randmem=0..5&whatif.compute=2\
         &whatif.bandwidth=0.5&whatif.latency=4&whatif.speeds=d1:42.5"
    );
    // The latency factor is written only when it is not 1, so old links (without it)
    // read as they always did, and a link without it means 1.
    s.what_if.latency = 1.0;
    assert!(!round_trip(&s).contains("whatif.latency"));
}

#[test]
fn explicit_clusters_use_a_device_table_or_compress() {
    let mut s = defaults();
    let rows = vec![
        DeviceRow {
            id: "gpu:0,a".into(),
            kind: None,
            speed: 1.5e13,
            memory: None,
        },
        DeviceRow {
            id: "cpu0".into(),
            kind: Some("cpu".into()),
            speed: 0.25,
            memory: Some(64.0),
        },
    ];
    s.cluster = ClusterSource::Inline(cluster_value(&rows, 1e9, 0.0));
    let f = round_trip(&s);
    assert!(
        f.contains("cluster=explicit&dev=gpu%3A0%2Ca::1.5e13:,cpu0:cpu:0.25:64&bw=1e9&lat=0"),
        "{f}"
    );
    s.cluster = ClusterSource::Inline(cluster_value(&default_devices(), DEFAULT_BW, DEFAULT_LAT));
    assert_eq!(round_trip(&s), "#v=1&cluster=explicit");
    let with_links: Value = serde_json::from_str(
        r#"{"devices":[{"id":"a","speed":1},{"id":"b","speed":2}],"bandwidth":10,
            "links":[{"src":"a","dst":"b","bandwidth":5}]}"#,
    )
    .unwrap();
    s.cluster = ClusterSource::Inline(with_links);
    assert!(round_trip(&s).contains("clusterz="));

    // A cluster file: its text goes into the link.
    let mut f = defaults();
    f.cluster = ClusterSource::File("c.json".into());
    assert!(fragment(&f)
        .unwrap_err()
        .to_string()
        .contains("give its text"));
    let text = r#"{"name":"two","devices":[{"id":"a","speed":1},{"id":"b","kind":"cpu","speed":2}],"bandwidth":10,"latency":0}"#;
    let link = fragment_with_files(&f, None, Some(text)).unwrap();
    assert_eq!(link, "#v=1&cluster=explicit&dev=a::1:,b:cpu:2:&bw=10&lat=0");
    let back = parse_fragment(&link).unwrap();
    let c = back.fixed_cluster(&|_| unreachable!()).unwrap().unwrap();
    assert_eq!(c.devices[1].kind, "cpu");
    assert!(fragment_with_files(&f, None, Some(r#"{"devices":[]}"#)).is_err());
}

#[test]
fn inline_graphs_embed_or_hash() {
    let small: Value =
        serde_json::from_str(r#"{"name":"tiny","nodes":[{"id":"a","cost":1}],"edges":[]}"#)
            .unwrap();
    let mut s = defaults();
    s.graph = GraphSource::Inline(small);
    assert!(round_trip(&s).contains("graphz="));

    // A graph whose compressed text is over the limit: random-looking ids.
    let mut rng = crate::rng::Rng::new(1);
    let nodes: Vec<Value> = (0..4000)
        .map(|i| serde_json::json!({"id": format!("n{i}_{:x}", rng.next_u64()), "cost": 1}))
        .collect();
    let big = serde_json::json!({"name": "big one", "nodes": nodes});
    let text = big.to_string();
    s.graph = GraphSource::File("/tmp/big.json".into());
    let f = fragment_with_graph_text(&s, Some(&text)).unwrap();
    assert!(
        f.contains(&format!("graphsha256={}", graph_sha256(&text))),
        "{f}"
    );
    assert!(f.contains("graphname=big%20one"));
    let e = parse_fragment(&f).unwrap_err().to_string();
    assert!(e.contains("give that file"), "{e}");
    let e = parse_fragment_with_graph(&f, Some("{}"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not the linked one"), "{e}");
    let back = parse_fragment_with_graph(&f, Some(&text)).unwrap();
    assert_eq!(back.graph, GraphSource::Inline(big));
}

#[test]
fn page_links_carry_the_view_and_the_graph_as_given() {
    // The view (`pair`) is written last and read back; a scenario reader ignores it.
    let mut s = defaults();
    s.seeds = 2;
    let view = PageView {
        pair: Some("hash/fifo".into()),
        ..PageView::default()
    };
    let f = page_fragment(&s, None, None, &view).unwrap();
    assert_eq!(f, "#v=1&seeds=2&pair=hash%2Ffifo");
    let link = read_link(&f).unwrap();
    assert_eq!(link.scenario, s);
    assert_eq!(link.graph, LinkGraph::Bundled);
    assert_eq!(link.view, view);
    assert_eq!(parse_fragment(&f).unwrap(), s);
    assert_eq!(fragment(&s).unwrap(), "#v=1&seeds=2");

    // An uploaded graph, as the page passes it (a file name and its text): embedded,
    // and read back as exactly that text.
    let text = "{\"name\": \"tiny\",\n \"nodes\": [{\"id\": \"a\", \"cost\": 1}]}\n";
    s.graph = GraphSource::File("tiny".into());
    let f = page_fragment(&s, Some(text), None, &PageView::default()).unwrap();
    assert!(f.starts_with("#v=1&graphz="), "{f}");
    let link = read_link(&f).unwrap();
    assert_eq!(
        link.graph,
        LinkGraph::Embedded {
            name: "tiny".into(),
            text: text.into()
        }
    );
    assert_eq!(link.scenario, s);
    assert_eq!(page_fragment(&s, Some(text), None, &link.view).unwrap(), f);

    // A graph named by hash: the page reads the link without the file, and writes the
    // hash back as it came until the file is given.
    let h = GraphHash {
        sha256: graph_sha256(text),
        name: "big one".into(),
    };
    s.graph = GraphSource::File("big one".into());
    let f = page_fragment(&s, None, Some(&h), &PageView::default()).unwrap();
    assert_eq!(
        f,
        format!("#v=1&graphsha256={}&graphname=big%20one&seeds=2", h.sha256)
    );
    let link = read_link(&f).unwrap();
    assert_eq!(link.graph, LinkGraph::Hashed(h.clone()));
    assert_eq!(link.scenario, s);
    check_graph(&h, text).unwrap();
    let e = check_graph(&h, "{}").unwrap_err().to_string();
    assert!(e.contains("not the linked one"), "{e}");
    let bad_hash = GraphHash {
        sha256: "xyz".into(),
        name: "g".into(),
    };
    assert!(page_fragment(&s, None, Some(&bad_hash), &PageView::default()).is_err());
}

#[test]
fn links_the_javascript_page_wrote_still_open() {
    // Written by the page before it used this module: its payloads were compressed by
    // the browser's CompressionStream('deflate-raw') (zlib, level 6; these by node's zlib).
    let graph =
        "{\"name\":\"tiny\",\"nodes\":[{\"id\":\"a\",\"cost\":1},{\"id\":\"b\",\"cost\":2}],\
                 \"edges\":[{\"src\":\"a\",\"dst\":\"b\",\"bytes\":4000000}]}";
    let f = "#v=1&graphz=PYsxCsAgEAT_svUVSUh1XwkW6kmwiEK0Ebm_B0Wy5cxOR7JPAKPG1EBIWUIBXx1RwLAg-\
             FwqeFdazP3sUEMIcq-ivH4lMuw8ulaHPbc5NfoB&clusterz=VY0xDoAgEAT_svUVamLDV4wFcJdIVDR\
             CpCD-3UIScOvZmQyvd4FCTAcILLezEqCmDMdQ0CCEU4Sh-q7ZQwUwFRh-wEww2nNyHJf2TNicX79EuGx\
             pcIhF1pzGKnte&whatif.speeds=a:5e11&pair=single/fifo";
    let link = read_link(f).unwrap();
    let LinkGraph::Embedded { name, text } = &link.graph else {
        panic!("{:?}", link.graph)
    };
    assert_eq!((name.as_str(), text.as_str()), ("tiny", graph));
    assert_eq!(link.view.pair.as_deref(), Some("single/fifo"));
    let ClusterSource::Inline(c) = &link.scenario.cluster else {
        panic!()
    };
    assert_eq!(c["links"][0]["bandwidth"], 5e8);
    assert_eq!(link.scenario.what_if.speeds["a"], 5e11);
}

#[test]
fn deflate_within_stops_at_the_limit() {
    let text: String = (0..20_000).map(|i| format!("{i:x},")).collect();
    let z = deflate(&text);
    assert_eq!(deflate_within(&text, z.len()), Some(z.clone()));
    assert_eq!(deflate_within(&text, z.len() - 1), None);
    assert_eq!(deflate_within("", 10), Some(deflate("")));
    assert_eq!(deflate_within(&text, 0), None);
}

#[test]
fn atoms() {
    assert_eq!(number(1.5e13), "1.5e13");
    assert_eq!(number(100.0), "100");
    assert_eq!(number(1000.0), "1e3");
    assert_eq!(number(0.5), "0.5");
    assert_eq!(number(1e-5), "1e-5");
    assert_eq!(number(0.1 + 0.2), "0.30000000000000004");
    assert_eq!(number(123456.789), "123456.789");
    for x in [1.5e13, 0.1 + 0.2, 1e-300, 7e21, 12345678.9, 3.0] {
        assert_eq!(number(x).parse::<f64>().unwrap(), x);
    }
    for data in [
        &b""[..],
        b"f",
        b"fo",
        b"foo",
        b"foob",
        &[0xff, 0xfe, 0x00, 0x7f],
    ] {
        assert_eq!(unbase64url("t", &base64url(data)).unwrap(), data);
    }
    assert_eq!(base64url(b"\xfb\xff"), "-_8");
    assert_eq!(encode("a b,c:d/é"), "a%20b%2Cc%3Ad%2F%C3%A9");
    assert_eq!(decode("t", "a%20b%2Cc%3Ad%2F%C3%A9").unwrap(), "a b,c:d/é");
    assert_eq!(
        inflate("t", &deflate("hello hello hello")).unwrap(),
        "hello hello hello"
    );
    // A link cut short: plain words the page can show, never the inflater's Debug text.
    let whole = deflate(&"a graph's text, long enough to compress. ".repeat(40));
    let err = inflate("graphz", &whole[..whole.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("graphz: the compressed data is cut short"),
        "{err}"
    );
    assert!(!err.contains('{') && !err.contains("Status"), "{err}");
}

#[test]
fn params_and_bad_links() {
    let mut s = defaults();
    s.params.insert("hash.x".into(), 3.0);
    // hash has no parameter x: fragment refuses like the scenario does.
    assert!(fragment(&s).is_err());
    for (f, want) in [
        ("graph=x", "no format version"),
        ("v=3", "version '3'"),
        ("v=1&bogus=1", "unknown key 'bogus'"),
        ("v=1&devices=x", "devices: 'x' is not a whole number"),
        ("v=1&speed=1..y", "speed: 'y' is not a number"),
        ("v=1&graph=../etc", "not a bundled graph name"),
        ("v=1&seeds=1&seeds=2", "appears twice"),
        ("v=1&placers=nope", "unknown placer 'nope'"),
        ("v=1&graphz=!!", "not base64url"),
        ("v=1&graphz=AAAA", "damaged"),
        ("v=1&dev=a:gpu:1", "id:kind:speed:memory"),
        ("v=1&links=slow", "neither 'parallel' nor 'fcfs'"),
        ("v=1&fifo.zzz=1", "fifo has no parameter 'zzz'"),
        ("v=1&pair=hash/fifo", ""),
        ("v=1&pairseed=2&sort=-makespan", ""),
        ("v=1&pairseed=-1", "pairseed: '-1' is not a seed index"),
        (
            "v=1&sort=make%20span",
            "sort: 'make span' is not a column name",
        ),
        ("v=1&sort=-", "sort: '-' is not a column name"),
        ("v=1&scale=lin", "scale: 'lin' is not a chart scale"),
    ] {
        match parse_fragment(f) {
            Ok(_) => assert!(want.is_empty(), "{f} parsed"),
            Err(e) => assert!(!want.is_empty() && e.to_string().contains(want), "{f}: {e}"),
        }
    }
}

/// The footprint rule travels as `footprint=` (a version 2 key, after `order`) only when
/// it is not the default, so a scenario with the default writes the link it wrote before
/// the key existed; every rule reads back to itself; an unknown one is refused by name.
#[test]
fn footprint_round_trips_and_the_default_is_not_written() {
    let s = defaults();
    assert_eq!(fragment(&s).unwrap(), "#v=1");
    for f in Footprint::ALL {
        let mut t = defaults();
        t.links = LinkModel::Fcfs;
        t.footprint = f;
        let link = fragment(&t).unwrap();
        if f.is_default() {
            assert_eq!(link, "#v=1&links=fcfs");
        } else {
            assert_eq!(link, format!("#v=2&links=fcfs&footprint={}", f.name()));
        }
        assert_eq!(parse_fragment(&link).unwrap(), t, "{link}");
    }
    assert_eq!(
        parse_fragment("v=2&footprint=outputs").unwrap(),
        s,
        "the default read explicitly"
    );
    let e = parse_fragment("v=2&footprint=inputs")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("footprint: 'inputs' is not a footprint rule") && e.contains("inputs_outputs"),
        "{e}"
    );
}

/// The table's sort and the timeline's seed travel in a page link (after `pair`), come
/// back whole, and default to nothing written; links written before them open as before.
#[test]
fn page_links_carry_the_tables_sort_and_the_timelines_seed() {
    let s = defaults();
    let view = PageView {
        pair: Some("heft/given".into()),
        pair_seed: 3,
        pair2: Some("random/fifo".into()),
        sort: Some("-makespan".into()),
        log_scale: true,
        ..PageView::default()
    };
    let f = page_fragment(&s, None, None, &view).unwrap();
    assert_eq!(
        f,
        "#v=1&pair=heft%2Fgiven&pairseed=3&pair2=random%2Ffifo&sort=-makespan&scale=log"
    );
    assert_eq!(read_link(&f).unwrap().view, view);
    assert_eq!(parse_fragment(&f).unwrap(), s);
    let asc = PageView {
        sort: Some("traffic_bytes".into()),
        ..PageView::default()
    };
    let f = page_fragment(&s, None, None, &asc).unwrap();
    assert_eq!(f, "#v=1&sort=traffic_bytes");
    assert_eq!(read_link(&f).unwrap().view, asc);
    // Seed 0 and no sort are the defaults: not written.
    assert_eq!(
        page_fragment(&s, None, None, &PageView::default()).unwrap(),
        "#v=1"
    );
    assert_eq!(read_link("#v=1&pair=a/b").unwrap().view.pair_seed, 0);
    let bad = PageView {
        sort: Some("<b>".into()),
        ..PageView::default()
    };
    let e = page_fragment(&s, None, None, &bad).unwrap_err().to_string();
    assert!(e.contains("not a column name"), "{e}");
}

/// The Sweep panel's axis, factors and scale travel in a page link and come back whole;
/// the default (none) is not written, so links written before them are unchanged.
#[test]
fn page_links_carry_the_sweep() {
    use crate::scenario::sweep::{Axis, SweepSpec};
    let s = defaults();
    let view = PageView {
        sweep: Some(SweepSpec::new(Axis::Bandwidth, vec![1.0, 0.5, 0.2, 0.1]).unwrap()),
        sweep_log: true,
        ..PageView::default()
    };
    let f = page_fragment(&s, None, None, &view).unwrap();
    assert_eq!(f, "#v=1&sweep=bandwidth:1,0.5,0.2,0.1&sweepscale=log");
    assert_eq!(read_link(&f).unwrap().view, view);
    assert_eq!(parse_fragment(&f).unwrap(), s);
    for (f, want) in [
        ("#v=1&sweep=memory:1,2", "compute, bandwidth or latency"),
        ("#v=1&sweep=latency:1,0", "latency factors: factor 2 is 0"),
        ("#v=1&sweep=compute:1,0", "compute factors: factor 2 is 0"),
        ("#v=1&sweep=compute", "not axis:factors"),
        ("#v=1&sweepscale=big", "not a chart scale"),
    ] {
        let e = read_link(f).unwrap_err().to_string();
        assert!(e.contains(want), "{f}: {e}");
    }
    let bad = PageView {
        sweep: Some(SweepSpec {
            axis: Axis::Compute,
            factors: vec![f64::NAN],
        }),
        ..PageView::default()
    };
    let e = page_fragment(&s, None, None, &bad).unwrap_err().to_string();
    assert!(e.contains("compute factors: factor 1 is NaN"), "{e}");
}
