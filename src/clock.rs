//! Wall-clock timing of placers (`placement_seconds`), natively and in the browser.
//! `std::time::Instant` does not exist on wasm32-unknown-unknown, so there the clock reads
//! `performance.now()` (or `Date.now()` where no `performance` object exists).

pub struct Clock(f64);

impl Clock {
    pub fn start() -> Clock {
        Clock(now_seconds())
    }

    pub fn seconds(&self) -> f64 {
        (now_seconds() - self.0).max(0.0)
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn now_seconds() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64()
}

#[cfg(target_arch = "wasm32")]
fn now_seconds() -> f64 {
    use wasm_bindgen::JsCast;
    let global = js_sys::global();
    let perf = js_sys::Reflect::get(&global, &"performance".into()).ok();
    if let Some(perf) = perf.filter(|p| !p.is_undefined()) {
        if let Ok(now) = js_sys::Reflect::get(&perf, &"now".into()) {
            if let Ok(f) = now.dyn_into::<js_sys::Function>() {
                if let Some(ms) = f.call0(&perf).ok().and_then(|v| v.as_f64()) {
                    return ms / 1000.0;
                }
            }
        }
    }
    js_sys::Date::now() / 1000.0
}
