//! The ONNX importer: `import::onnx::import` on any bytes; the input's length picks the
//! options (odd: the training pass; 2 or 3 modulo 4: batch 2 for dynamic first dimensions). A model that imports must write
//! itself back as graph JSON that loads as the same graph, and runs on a small fixed cluster
//! (see `placesim_fuzz::exercise`). Seeds: the committed fixtures (tests/fixtures/onnx/).
#![no_main]

use libfuzzer_sys::fuzz_target;
use placesim::import::onnx::{import, Options};
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim_fuzz as h;

fuzz_target!(|data: &[u8]| {
    let options = Options {
        train: data.len() % 2 == 1,
        batch: (data.len() % 4 >= 2).then_some(2),
        ..Options::default()
    };
    let graph = match import(data.to_vec(), "m", &options) {
        Ok(i) => i.graph,
        Err(e) => return h::check_error(&e),
    };
    let again = Graph::from_json(&graph.to_json(), "other")
        .unwrap_or_else(|e| panic!("an imported graph's JSON does not load: {e}"));
    assert_eq!(graph, again, "an imported graph changes through its own JSON");
    let cluster = Cluster::from_json(h::CLUSTER, "c").unwrap();
    h::exercise(&h::plain_scenario(), &graph, Some(&cluster), h::salt(data));
});
