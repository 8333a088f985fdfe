//! The share-link decoder: `scenario::link::read_link` and `parse_fragment_with_graph` on any
//! text (the page reads links it is handed through the same code). A link that reads is
//! loaded like the page does (its scenario through `scenario::load` with the in-memory
//! reader of `placesim_fuzz::read`, an embedded graph as it came), written again
//! (`page_fragment`) and read back to the same scenario, and run through the cheap pairs.
#![no_main]

use libfuzzer_sys::fuzz_target;
use placesim::scenario::link::{self as share, LinkGraph};
use placesim::scenario::load::{self, FileRef};
use placesim_fuzz as h;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let link = match share::read_link(text) {
        Ok(l) => l,
        Err(e) => {
            h::check_error(&e);
            let again = share::parse_fragment_with_graph(text, Some(h::GRAPH));
            assert!(again.is_err(), "read_link fails, parse_fragment does not");
            return;
        }
    };
    if let Err(e) = share::parse_fragment_with_graph(text, Some(h::GRAPH)) {
        h::check_error(&e);
    }
    // The page passes an embedded graph's text as the file the scenario names.
    let embedded = match &link.graph {
        LinkGraph::Embedded { text, .. } => Some(text.clone()),
        _ => None,
    };
    let read = |f: FileRef| match (&embedded, f) {
        (Some(t), FileRef::GraphFile(_)) => Ok(t.clone().into_bytes()),
        _ => h::read(f),
    };
    let hash = match &link.graph {
        LinkGraph::Hashed(g) => Some(g.clone()),
        _ => None,
    };
    let written = share::page_fragment(
        &link.scenario,
        embedded.as_deref(),
        hash.as_ref(),
        &link.view,
    );
    match written {
        Ok(again) => {
            let back = share::read_link(&again)
                .unwrap_or_else(|e| panic!("the link {again} does not read back: {e}"));
            assert_eq!(back.scenario, link.scenario, "link {text} -> {again}");
        }
        Err(e) => h::check_error(&e),
    }
    let loaded = match load::load(link.scenario, &read) {
        Ok(l) => l,
        Err(e) => return h::check_error(&e),
    };
    h::exercise(
        &loaded.scenario,
        &loaded.graph,
        loaded.cluster.as_ref(),
        h::salt(data),
    );
});
