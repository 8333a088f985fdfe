//! How the CLI writes: `out!`/`out_raw!` to stdout (a closed pipe ends the program quietly),
//! import notes to stderr, and a progress bar on stderr when it is a terminal.
//!
//! Not here: what is written (the subcommands, and the library's `report/` for the text of
//! tables and reports).

/// Writes to stdout; a closed pipe (`placesim ... | head`) ends the program quietly instead
/// of panicking, as it would with `println!`.
pub fn write_stdout(args: std::fmt::Arguments, newline: bool) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let result = stdout.write_fmt(args).and_then(|()| {
        if newline {
            stdout.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if result.is_err() {
        std::process::exit(0);
    }
}

/// `println!` to stdout through [`write_stdout`].
macro_rules! out {
    () => { $crate::cli::output::write_stdout(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::cli::output::write_stdout(format_args!($($arg)*), true) };
}

/// `print!` to stdout through [`write_stdout`].
macro_rules! out_raw {
    ($($arg:tt)*) => { $crate::cli::output::write_stdout(format_args!($($arg)*), false) };
}

/// An import's notes go to stderr, so stdout stays the result.
pub fn print_notes(notes: &[String]) {
    for n in notes {
        eprintln!("note: {n}");
    }
}

/// A one-line progress bar on stderr, drawn only when stderr is a terminal (never into a
/// pipe or a log file) and at most ten times a second; safe to call from any thread.
pub struct ProgressBar {
    pub label: String,
    on: bool,
    last: std::sync::Mutex<Option<std::time::Instant>>,
}

impl ProgressBar {
    pub fn new(label: &str) -> ProgressBar {
        use std::io::IsTerminal;
        ProgressBar {
            label: label.to_string(),
            on: std::io::stderr().is_terminal(),
            last: std::sync::Mutex::new(None),
        }
    }

    pub fn show(&self, done: f64, total: usize) {
        if !self.on {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let now = std::time::Instant::now();
        if last.is_some_and(|t| now.duration_since(t).as_millis() < 100) {
            return;
        }
        *last = Some(now);
        let f = if total > 0 {
            (done / total as f64).clamp(0.0, 1.0)
        } else {
            1.0
        };
        const WIDTH: usize = 30;
        let filled = (f * WIDTH as f64) as usize;
        eprint!(
            "\r\x1b[K{}[{}{}] {:>3.0}% of {total} steps",
            self.label,
            "#".repeat(filled),
            ".".repeat(WIDTH - filled),
            f * 100.0
        );
    }

    pub fn clear(&self) {
        let drawn = self
            .last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some();
        if self.on && drawn {
            eprint!("\r\x1b[K");
        }
    }
}
