//! How numbers read where they are shown: seconds and bytes with their prefixes, or the
//! bare numbers of abstract units. The one rule the CLI's tables, the sweep's CSV and (in
//! `www/units.js`, checked by a browser test) the page share.
//!
//! Not to be confused with a placer's *placement units* (colocation groups placed as one,
//! `model::groups::Groups`), an optimiser's *search units* (`optim::search_units`)
//! or its *work unit* (what its budget counts).

/// Formats a number compactly: 4 significant digits, scientific when very large or small.
pub fn num(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if !(1e-3..1e6).contains(&a) {
        format!("{x:.3e}")
    } else {
        let digits = (3 - libm::floor(libm::log10(a)) as i32).max(0) as usize;
        format!("{x:.digits$}")
    }
}

/// How a comparison's numbers read: seconds and bytes when its devices have physical speeds
/// (at least 1e6 work per second: FLOP/s), abstract units otherwise (Mayer17's speeds
/// 10..100). The page's `www/units.js` decides by the same rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitSystem {
    pub physical: bool,
}

impl UnitSystem {
    /// The units of devices of these speeds (`run`'s one cluster).
    pub fn of_speeds(speeds: impl IntoIterator<Item = f64>) -> UnitSystem {
        UnitSystem {
            physical: speeds.into_iter().fold(0.0, f64::max) >= 1e6,
        }
    }

    /// What a header adds after its figures: nothing in seconds and bytes, what the bare
    /// numbers mean otherwise.
    pub fn note(self) -> &'static str {
        if self.physical {
            ""
        } else {
            " (abstract units: times in work / speed, sizes in the graph's units)"
        }
    }

    /// The name of the time unit of machine-read output (CSV column names): `s` or `units`.
    pub fn time_unit(self) -> &'static str {
        if self.physical {
            "s"
        } else {
            "units"
        }
    }

    /// A time: `3.405 ms` (physical) or `3.405` (units).
    pub fn time(self, x: f64) -> String {
        if !self.physical {
            return num(x);
        }
        scaled(x, &[(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")])
    }

    /// A size: `240.8 MB` (physical, decimal prefixes) or `2.408e8` (units).
    pub fn bytes(self, x: f64) -> String {
        if !self.physical {
            return num(x);
        }
        scaled(
            x,
            &[
                (1e12, "TB"),
                (1e9, "GB"),
                (1e6, "MB"),
                (1e3, "kB"),
                (1.0, "B"),
            ],
        )
    }
}

/// `x` in the largest unit of `units` (largest first) it reaches, 4 significant digits.
fn scaled(x: f64, units: &[(f64, &str)]) -> String {
    let a = x.abs();
    if x == 0.0 || !x.is_finite() {
        // In the base unit (factor 1: seconds, bytes).
        let base = units
            .iter()
            .find(|u| u.0 == 1.0)
            .map_or(units[0].1, |u| u.1);
        return format!("{} {base}", num(x));
    }
    let (f, name) = units
        .iter()
        .copied()
        .find(|&(f, _)| a >= f)
        .unwrap_or(units[units.len() - 1]);
    format!("{} {name}", num(x / f))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn physical_numbers_get_units_and_abstract_ones_stay_bare() {
        let p = UnitSystem { physical: true };
        assert_eq!(p.time(0.003405), "3.405 ms");
        assert_eq!(p.time(2.5), "2.500 s");
        assert_eq!(p.time(4.2e-7), "420.0 ns");
        assert_eq!(p.bytes(2.408e8), "240.8 MB");
        assert_eq!(p.bytes(512.0), "512.0 B");
        assert_eq!(p.bytes(0.0), "0 B");
        assert_eq!(p.time(0.0), "0 s");
        let a = UnitSystem { physical: false };
        assert_eq!(a.time(0.003405), "0.003405");
        assert_eq!(a.bytes(2.408e8), "2.408e8");
    }
}
