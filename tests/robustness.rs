//! Bad input never panics: mutated and random documents go through every loader (graph,
//! cluster, scenario, share link) and, when they load, through every strategy pair. The page
//! runs the same code in a worker, where a panic would kill the user's work.

use proptest::prelude::*;

use placesim::compare;
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim::scenario::{ClusterSource, GraphSource, Scenario};
use placesim::share;

const GRAPH: &str = r#"{"nodes":[{"id":"a","op":"MatMul","cost":4,"mem":8,"colocate":"w"},{"id":"b","cost":2,"time":{"cpu":3},"colocate":"w"},{"id":"c","cost":5,"device":"gpu","layer":2},{"id":"d","cost":1}],"edges":[{"src":"a","dst":"b","bytes":10,"tensor":"t"},{"src":"a","dst":"c","bytes":10,"tensor":"t"},{"src":"b","dst":"d","bytes":3},{"src":"c","dst":"d"}]}"#;
const CLUSTER: &str = r#"{"devices":[{"id":"c0","kind":"cpu","speed":1,"memory":100},{"id":"g0","kind":"gpu","speed":4}],"bandwidth":2,"latency":0.5,"links":[{"src":"c0","dst":"g0","bandwidth":3}],"kinds":{"gpu":{"op_speed":{"MatMul":2}}}}"#;
const SCENARIO: &str = r#"{"graph":{"bundled":"g"},"cluster":{"generate":{"devices":3,"speed":[1,5],"bandwidth":[1,3],"latency":[0,1]}},"randomize":{"cost":[1,9]},"seeds":2,"links":"fcfs","params":{"msr.delta":2}}"#;

/// Replaces, deletes or inserts characters, biased towards JSON's structure and numbers.
fn mutate(text: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let alphabet = b"{}[]\":,-0123456789e.xnull truefalse";
    for &(pos, op, ch) in edits {
        if bytes.is_empty() {
            break;
        }
        let i = pos % bytes.len();
        let c = alphabet[ch as usize % alphabet.len()];
        match op % 3 {
            0 => bytes[i] = c,
            1 => {
                bytes.remove(i);
            }
            _ => bytes.insert(i, c),
        }
    }
    String::from_utf8_lossy(&bytes).to_string()
}

fn run_everything(graph: &Graph, cluster: &Cluster) {
    let mut s = Scenario::new(
        GraphSource::Bundled("g".into()),
        ClusterSource::File("c".into()),
    );
    for links in [
        placesim::sim::LinkModel::Parallel,
        placesim::sim::LinkModel::Fcfs,
    ] {
        s.links = links;
        let _ = compare::run(&s, graph, Some(cluster), &mut |_, _| true);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn mutated_graphs_and_clusters_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
        which in 0u8..2,
    ) {
        let base_graph = Graph::from_json(GRAPH, "g").unwrap();
        let base_cluster = Cluster::from_json(CLUSTER, "c").unwrap();
        if which == 0 {
            if let Ok(g) = Graph::from_json(&mutate(GRAPH, &edits), "g") {
                run_everything(&g, &base_cluster);
            }
        } else if let Ok(c) = Cluster::from_json(&mutate(CLUSTER, &edits), "c") {
            run_everything(&base_graph, &c);
        }
    }

    #[test]
    fn mutated_scenarios_and_links_never_panic(
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
        junk in "[ -~]{0,80}",
    ) {
        let g = Graph::from_json(GRAPH, "g").unwrap();
        if let Ok(s) = Scenario::from_json(&mutate(SCENARIO, &edits)) {
            if matches!(s.cluster, ClusterSource::Generate(ref c) if c.devices <= 64) && s.seeds <= 4 {
                let _ = compare::run(&s, &g, None, &mut |_, _| true);
            }
        }
        let link = share::fragment(&Scenario::from_json(SCENARIO).unwrap()).unwrap();
        let _ = share::parse_fragment(&mutate(&link, &edits));
        let _ = share::parse_fragment(&junk);
        let _ = share::parse_fragment(&format!("#v=1&{junk}"));
    }
}

#[test]
fn extreme_but_valid_numbers_never_panic() {
    let graphs = [
        r#"{"nodes":[{"id":"a","cost":1e300,"mem":1e308},{"id":"b","cost":0}],"edges":[{"src":"a","dst":"b","bytes":1e308}]}"#,
        r#"{"nodes":[{"id":"a","cost":0},{"id":"b","cost":0}],"edges":[{"src":"a","dst":"b","bytes":0},{"src":"a","dst":"b","bytes":0}]}"#,
        r#"{"nodes":[{"id":"a","cost":5e-324},{"id":"b","time":{"gpu":1e300}}],"edges":[{"src":"a","dst":"b","bytes":5e-324}]}"#,
    ];
    let clusters = [
        r#"{"devices":[{"id":"x","speed":1e-300,"memory":0},{"id":"y","speed":1e300}],"bandwidth":1e-300,"latency":1e300}"#,
        r#"{"devices":[{"id":"x","speed":5e-324}],"bandwidth":5e-324}"#,
        r#"{"devices":[{"id":"x","speed":1},{"id":"y","speed":1}],"bandwidth":1e308,"latency":0}"#,
    ];
    for g in graphs {
        let g = Graph::from_json(g, "g").unwrap();
        for c in clusters {
            let c = Cluster::from_json(c, "c").unwrap();
            run_everything(&g, &c);
        }
    }
}
