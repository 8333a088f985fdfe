//! The cluster loader: `Cluster::from_json` on any text. A cluster that loads must write
//! itself back (`to_json`) to a text that loads as the same cluster, and runs a small fixed
//! graph (see `placesim_fuzz::exercise`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use placesim::model::cluster::Cluster;
use placesim::model::graph::Graph;
use placesim_fuzz as h;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let cluster = match Cluster::from_json(text, "c") {
        Ok(c) => c,
        Err(e) => return h::check_error(&e),
    };
    let again = Cluster::from_json(&cluster.to_json(), "other")
        .unwrap_or_else(|e| panic!("a loaded cluster's own JSON does not load: {e}"));
    assert_eq!(cluster, again, "a cluster changes through its own JSON");
    let graph = Graph::from_json(h::GRAPH, "g").unwrap();
    h::exercise(&h::plain_scenario(), &graph, Some(&cluster), h::salt(data));
});
