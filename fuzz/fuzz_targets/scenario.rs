//! The scenario loader: `Scenario::from_json`, then `scenario::load::load` with an
//! in-memory reader (the small bundled graphs, graph `g`, cluster file `c`; see
//! `placesim_fuzz::read`), then the loaded problem through the cheap pairs. A scenario that
//! loads must also survive its own share link: written, read back, the same scenario.
#![no_main]

use libfuzzer_sys::fuzz_target;
use placesim::scenario::link as share;
use placesim::scenario::{load, GraphSource, Scenario};
use placesim_fuzz as h;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let scenario = match Scenario::from_json(text) {
        Ok(s) => s,
        Err(e) => return h::check_error(&e),
    };
    let loaded = match load::load(scenario, &h::read) {
        Ok(l) => l,
        Err(e) => return h::check_error(&e),
    };
    // A bundled graph travels by name: its link must give the scenario back whole.
    if matches!(loaded.scenario.graph, GraphSource::Bundled(_)) && loaded.cluster_text.is_none() {
        match share::fragment(&loaded.scenario) {
            Ok(link) => {
                let back = share::parse_fragment(&link)
                    .unwrap_or_else(|e| panic!("the link {link} does not read back: {e}"));
                assert_eq!(back, loaded.scenario, "link {link}");
            }
            Err(e) => h::check_error(&e),
        }
    }
    h::exercise(
        &loaded.scenario,
        &loaded.graph,
        loaded.cluster.as_ref(),
        h::salt(data),
    );
});
