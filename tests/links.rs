//! Golden share links: the exact link text of every shipped scenario and of a set of
//! scenarios and page views that together use every key, and the exact scenario, graph and
//! view that a set of odd (hand-written) links read as. A change to `tests/golden/links.txt`
//! breaks every link already shared: rerun with `PLACESIM_BLESS=1` only for a new entry.

use std::collections::BTreeMap;
use std::path::PathBuf;

use placesim::model::cluster::ClusterGen;
use placesim::model::problem::Footprint;
use placesim::model::LinkModel;
use placesim::scenario::link::{
    fragment_with_files, page_fragment, parse_fragment, read_link, GraphHash, PageView,
};
use placesim::scenario::sweep::{Axis, SweepSpec};
use placesim::scenario::{ClusterSource, GraphSource, Randomize, Replication, Scenario, WhatIf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn defaults() -> Scenario {
    placesim::scenario::defaults::defaults()
}

/// Every shipped scenario's link (its cluster file's text written into the link).
fn shipped() -> Vec<(String, String)> {
    let dir = root().join("scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let s = Scenario::from_json(&std::fs::read_to_string(p).unwrap()).unwrap();
            let cluster_text = match &s.cluster {
                ClusterSource::File(f) => Some(std::fs::read_to_string(dir.join(f)).unwrap()),
                _ => None,
            };
            let link = fragment_with_files(&s, None, cluster_text.as_deref()).unwrap();
            let name = p.file_stem().unwrap().to_string_lossy().to_string();
            (format!("shipped {name}"), link)
        })
        .collect()
}

/// A link to write: its name, scenario, graph text, graph named by hash, and view.
type Written = (
    String,
    Scenario,
    Option<String>,
    Option<GraphHash>,
    PageView,
);

/// Scenarios and views that together write every key, some several ways.
fn written() -> Vec<Written> {
    let mut out = Vec::new();
    let mut add = |name: &str, s: Scenario, text: Option<&str>, view: PageView| {
        out.push((name.to_string(), s, text.map(String::from), None, view));
    };
    add("defaults", defaults(), None, PageView::default());

    let mut s = defaults();
    s.graph = GraphSource::Bundled("vgg19_layers".into());
    s.cluster = ClusterSource::Generate(ClusterGen {
        devices: 50,
        speed: [10.0, 100.0],
        memory: Some(1.6e10),
        memory_fraction: Some(0.25),
        bandwidth: [0.1 + 0.2, 7e21],
        latency: [0.0, 1e-300],
        kinds: vec!["cpu".into(), "g p,u:x".into()],
    });
    s.placers = vec!["submodular".into(), "hash".into(), "expert".into()];
    s.schedulers = vec!["pct".into(), "fifo".into()];
    s.params = BTreeMap::from([
        ("submodular.g".to_string(), 0.5),
        ("submodular.cap".to_string(), 1.25),
        ("expert.mode".to_string(), 1.0),
    ]);
    s.seeds = 10;
    s.seed = 12345;
    s.randomize = Some(Randomize {
        cost: Some([1.0, 100.0]),
        bytes: Some([1.5, 1e9]),
        mem: Some([0.0, 0.0]),
    });
    s.what_if = WhatIf {
        compute: 2.0,
        bandwidth: 0.5,
        latency: 4.0,
        speeds: BTreeMap::from([("d1".to_string(), 42.5), ("d 0/x".to_string(), 1e3)]),
    };
    add("generated, every key", s.clone(), None, PageView::default());
    s.links = LinkModel::Fcfs;
    s.link_order = vec!["tao".into()];
    s.randomize = Some(Randomize {
        cost: None,
        bytes: Some([1.0, 2.0]),
        mem: None,
    });
    add("one order", s.clone(), None, PageView::default());
    s.link_order = vec!["random".into(), "tio".into(), "tao".into()];
    s.footprint = Footprint::InputsOutputs;
    s.iterations = 7;
    add("several orders", s, None, PageView::default());

    let mut s = defaults();
    s.links = LinkModel::Fcfs;
    s.footprint = Footprint::Mem;
    add("footprint only", s, None, PageView::default());

    let mut s = defaults();
    s.links = LinkModel::Fcfs;
    s.link_order = vec!["random".into(), "tio".into(), "tao".into()];
    s.iterations = 200;
    s.placers = vec!["pinned".into()];
    s.replica = Some(Replication {
        workers: vec!["w0".into(), "w 1".into()],
        ps: vec!["ps0".into(), "ps,1".into()],
        forward_target: Some("loss/op".into()),
        aggregate: true,
        param_ops: Some(vec!["VarHandleOp".into(), "Read:Var".into()]),
        params_from_sources: true,
        balance: Some(0.9),
    });
    s.seed = (1 << 53) - 1;
    add(
        "replica, every option",
        s.clone(),
        None,
        PageView::default(),
    );
    s.replica = Some(Replication {
        workers: vec!["w0".into()],
        ps: vec!["ps0".into()],
        forward_target: None,
        aggregate: false,
        param_ops: None,
        params_from_sources: false,
        balance: None,
    });
    add("replica, no option", s, None, PageView::default());

    let cluster = |json: &str| ClusterSource::Inline(serde_json::from_str(json).unwrap());
    let mut s = defaults();
    s.cluster = cluster(
        r#"{"devices":[{"id":"gpu:0,a","speed":1.5e13},{"id":"cpu0","kind":"cpu","speed":0.25,"memory":64}],"bandwidth":1e9,"latency":0}"#,
    );
    add("explicit devices", s.clone(), None, PageView::default());
    s.cluster = cluster(
        r#"{"name":"x","devices":[{"id":"cpu0","kind":"cpu","speed":2e11,"memory":6.4e10},{"id":"gpu0","kind":"gpu","speed":1.5e13,"memory":1.6e10},{"id":"gpu1","kind":"gpu","speed":1.5e13,"memory":1.6e10}],"bandwidth":1.2e10,"latency":1e-5}"#,
    );
    add(
        "explicit default devices",
        s.clone(),
        None,
        PageView::default(),
    );
    s.cluster = cluster(
        r#"{"devices":[{"id":"cpu0","kind":"cpu","speed":2e11,"memory":6.4e10},{"id":"gpu0","kind":"gpu","speed":1.5e13,"memory":1.6e10},{"id":"gpu1","kind":"gpu","speed":1.5e13,"memory":1.6e10}],"bandwidth":3,"latency":1e-5}"#,
    );
    add(
        "explicit default devices, bw",
        s.clone(),
        None,
        PageView::default(),
    );
    s.cluster = cluster(
        r#"{"devices":[{"id":"a","speed":1},{"id":"b","speed":2}],"bandwidth":10,"links":[{"src":"a","dst":"b","bandwidth":5}]}"#,
    );
    add("clusterz", s, None, PageView::default());

    let mut s = defaults();
    s.graph = GraphSource::Inline(
        serde_json::from_str(r#"{"name":"tiny","nodes":[{"id":"a","cost":1}],"edges":[]}"#)
            .unwrap(),
    );
    add("inline graph", s.clone(), None, PageView::default());
    s.graph = GraphSource::File("dir/tiny.json".into());
    add(
        "graph file",
        s.clone(),
        Some("{\"name\": \"tiny\",\n \"nodes\": [{\"id\": \"a\", \"cost\": 1}]}\n"),
        PageView::default(),
    );
    let nodes: Vec<String> = (0..4000u64)
        .map(|i| {
            format!(
                "{{\"id\":\"n{i}_{:x}\",\"cost\":1}}",
                i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
            )
        })
        .collect();
    let big = format!("{{\"name\":\"big one\",\"nodes\":[{}]}}", nodes.join(","));
    add(
        "graph file, hashed",
        s.clone(),
        Some(&big),
        PageView::default(),
    );
    s.graph = GraphSource::File("dir/nameless.json".into());
    let nameless = big.replace("\"name\":\"big one\",", "");
    add(
        "graph file, hashed, no name",
        s,
        Some(&nameless),
        PageView::default(),
    );

    let mut s = defaults();
    s.seeds = 2;
    let view = PageView {
        pair: Some("heft/given".into()),
        pair_seed: 3,
        pair2: Some("random/fifo/t ao".into()),
        sort: Some("-makespan".into()),
        log_scale: true,
        sweep: Some(SweepSpec::new(Axis::Bandwidth, vec![1.0, 0.5, 0.2, 0.1]).unwrap()),
        sweep_log: true,
    };
    add("every view key", s.clone(), None, view);
    let view = PageView {
        sort: Some("traffic_bytes".into()),
        sweep: Some(SweepSpec::new(Axis::Latency, vec![1e-3, 7e21]).unwrap()),
        ..PageView::default()
    };
    add("some view keys", s.clone(), None, view);
    out.push((
        "a graph named by hash".into(),
        s,
        None,
        Some(GraphHash {
            sha256: "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08".into(),
            name: "big one".into(),
        }),
        PageView {
            sweep: Some(SweepSpec::new(Axis::Compute, vec![8.0, 4.0]).unwrap()),
            ..PageView::default()
        },
    ));
    out
}

/// Hand-written links, some odd (keys in another order, repeated meanings, defaults written
/// out, other notations), and what they read as.
const READ: &[&str] = &[
    "v=1",
    "#v=2",
    "#v=1&graph=vgg19_layers&graph=x",
    "#v=1&dev=a:gpu:1e13:,b::2E11:64&cluster=generate&devices=3",
    "#v=1&cluster=generate&dev=a:gpu:1e13:,b::2E11:64",
    "#v=1&cluster=explicit&bw=1&lat=0",
    "#v=1&cluster=explicit&devices=9",
    "#v=1&speed=5&bandwidth=1e+3..2.50&latency=0.0..1&memory=1e3&kinds=",
    "#v=1&seeds=3&placers=hash,single&schedulers=fifo&seed=0&links=parallel&order=fifo",
    "#v=1&whatif.speeds=a%20b:1,c:2e3&whatif.compute=1&msr.delta=5&submodular.g=.5",
    "#v=1&randmem=0&randcost=1..1",
    "#v=1&links=fcfs&order=tao&footprint=outputs&iterations=1",
    "#v=1&links=fcfs&replica.ps=p&replica.workers=w&replica.aggregate=0&replica.sources=1",
    "#v=1&pair=a%2Fb&pairseed=0&scale=linear&sweepscale=linear&sort=x_1",
    "#v=1&sweep=compute:%201,2&pair2=x",
    "#v=1&graphname=g&graphsha256=9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08&graph=vgg19_layers",
    "#v=1&graphsha256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "#v=1&&graph=vgg19_layers&",
    "#v=1&%73eeds=2",
    "#v=1&graphz=PYsxCsAgEAT_svUVSUh1XwkW6kmwiEK0Ebm_B0Wy5cxOR7JPAKPG1EBIWUIBXx1RwLAg-FwqeFdazP3sUEMIcq-ivH4lMuw8ulaHPbc5NfoB&graph=vgg19_layers",
    "#v=1&graph=vgg19_layers&graphz=PYsxCsAgEAT_svUVSUh1XwkW6kmwiEK0Ebm_B0Wy5cxOR7JPAKPG1EBIWUIBXx1RwLAg-FwqeFdazP3sUEMIcq-ivH4lMuw8ulaHPbc5NfoB",
    "#v=1&clusterz=VY0xDoAgEAT_svUVamLDV4wFcJdIVDRCpCD-3UIScOvZmQyvd4FCTAcILLezEqCmDMdQ0CCEU4Sh-q7ZQwUwFRh-wEww2nNyHJf2TNicX79EuGxpcIhF1pzGKnte&cluster=explicit&dev=a::1:",
    "graph=x",
    "v=3",
    "v=1&bogus=1",
    "v=1&devices=x",
    "v=1&devices=99999999999999999999999",
    "v=1&speed=1..y",
    "v=1&graph=../etc",
    "v=1&placers=nope",
    "v=1&graphz=!!",
    "v=1&graphz=AAAA",
    "v=1&clusterz=AAAA",
    "v=1&graphsha256=abc",
    "v=1&dev=a:gpu:1",
    "v=1&dev=a:gpu:x:",
    "v=1&links=slow",
    "v=1&cluster=other",
    "v=1&fifo.zzz=1",
    "v=1&pairseed=-1",
    "v=1&sort=make%20span",
    "v=1&scale=lin",
    "v=1&sweep=memory:1,2",
    "v=1&sweep=latency:1,0",
    "v=1&sweep=compute",
    "v=1&sweepscale=big",
    "v=2&footprint=inputs",
    "v=2&replica.balance=1",
    "v=2&replica.aggregate=yes",
    "v=1&seed=9007199254740992",
    "v=1&seeds=0",
    "v=1&iterations=99999999999",
    "v=1&whatif.speeds=a",
    "v=1&randcost=5..1",
    "v=1&graph=%ZZ",
    "v=1&kinds=a%C3",
];

fn entries() -> Vec<(String, String)> {
    let mut out = shipped();
    for (name, s, text, hash, view) in written() {
        let link = page_fragment(&s, text.as_deref(), hash.as_ref(), &view).unwrap();
        out.push((format!("write {name}"), link));
    }
    for f in READ {
        let read = match read_link(f) {
            Ok(link) => serde_json::to_string(&serde_json::json!({
                "scenario": link.scenario,
                "graph": link.graph,
                "view": link.view,
            }))
            .unwrap(),
            Err(e) => format!("error: {e}"),
        };
        out.push((format!("read {f}"), read));
    }
    out
}

fn golden() -> PathBuf {
    root().join("tests/golden/links.txt")
}

#[test]
fn links_are_byte_identical() {
    let got: Vec<String> = entries()
        .into_iter()
        .map(|(name, link)| format!("{name}\n{link}\n"))
        .collect();
    let got = got.join("\n");
    if std::env::var_os("PLACESIM_BLESS").is_some() {
        std::fs::write(golden(), &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(golden()).expect("tests/golden/links.txt");
    for (w, g) in want.split("\n\n").zip(got.split("\n\n")) {
        assert_eq!(w, g);
    }
    assert_eq!(want, got);
}

/// Every written link reads back to its scenario and view, and writes itself again.
#[test]
fn written_links_round_trip() {
    for (name, s, text, hash, view) in written() {
        let link = page_fragment(&s, text.as_deref(), hash.as_ref(), &view).unwrap();
        let back = read_link(&link).unwrap();
        assert_eq!(back.view, view, "{name}");
        if hash.is_none() && text.is_none() {
            if let GraphSource::Inline(_) = s.graph {
                assert_eq!(parse_fragment(&link).unwrap(), s, "{name}");
            } else if !matches!(s.cluster, ClusterSource::Inline(_)) {
                // (An explicit cluster reads back as its device table, numbers as floats:
                // the link written again below is the check.)
                assert_eq!(back.scenario, s, "{name}");
            }
        }
        let hash_back = match &back.graph {
            placesim::scenario::link::LinkGraph::Hashed(h) => Some(h.clone()),
            _ => None,
        };
        let text_back = match &back.graph {
            placesim::scenario::link::LinkGraph::Embedded { text, .. } => Some(text.clone()),
            _ => None,
        };
        let again = page_fragment(
            &back.scenario,
            text_back.as_deref(),
            hash_back.as_ref(),
            &back.view,
        )
        .unwrap();
        assert_eq!(again, link, "{name}");
    }
}

/// The golden links write every key of the table (so each key's writer and reader is pinned
/// by a golden text and a round trip).
#[test]
fn the_golden_links_write_every_key() {
    let mut links: Vec<String> = shipped().into_iter().map(|(_, l)| l).collect();
    for (_, s, text, hash, view) in written() {
        links.push(page_fragment(&s, text.as_deref(), hash.as_ref(), &view).unwrap());
    }
    for (name, _) in placesim::scenario::link::keys() {
        let spelt = match name {
            "STRATEGY.NAME" => "&submodular.g=".to_string(),
            _ => format!("&{name}="),
        };
        assert!(
            links.iter().any(|l| l.contains(&spelt)),
            "no link writes {name}"
        );
    }
}

/// `docs/url-format.md`'s key table lists the codec's keys, in the order links write them.
#[test]
fn the_format_doc_lists_every_key_in_order() {
    let doc = std::fs::read_to_string(root().join("docs/url-format.md")).unwrap();
    let listed: Vec<String> = doc
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            let cell = l.split('|').nth(1).unwrap();
            cell.split(',')
                .map(|k| k.trim().trim_matches('`').to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let keys: Vec<&str> = placesim::scenario::link::keys().map(|k| k.0).collect();
    assert_eq!(listed[0], "v");
    assert_eq!(listed[1..], keys[..]);
}
