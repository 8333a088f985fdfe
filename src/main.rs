//! The `placesim` command line: parses the arguments, calls the subcommand, prints its error
//! and sets the exit code (0 on success, 2 on any error; clap's own usage errors are its).
//!
//! Not here: flags (`cli/args.rs`), what a subcommand does (one file each in `cli/`), or any
//! simulation logic: everything goes through the library (`placesim::compare`, `report/`),
//! the same entry points the wasm adapter uses, so the CLI and the page give the same
//! numbers.

use std::process::ExitCode;

use clap::Parser;

mod cli;

use cli::args::{Cli, Command};

fn main() -> ExitCode {
    match dispatch(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> placesim::Result<()> {
    match cli.command {
        Command::Validate { graph, cluster } => cli::validate::validate(&graph, cluster.as_deref()),
        Command::Run(args) => cli::run::run(args),
        Command::Compare(args) => cli::compare::compare(args),
        Command::Sweep(args) => cli::sweep::sweep(args),
        Command::Generate {
            nodes,
            seed,
            window,
        } => cli::generate::generate(nodes, seed, window),
        Command::Coarsen {
            graph,
            cluster,
            target,
            json,
            output,
        } => cli::coarsen::coarsen(&graph, cluster.as_deref(), target, json, output.as_deref()),
        Command::Import {
            model,
            train,
            batch,
            input_shape,
            allow_unsized,
            dtype,
        } => cli::import::import(
            &model,
            train,
            batch,
            &input_shape,
            allow_unsized,
            dtype.as_deref(),
        ),
        Command::List => cli::list::list(),
        Command::Order { problem, algorithm } => cli::order::order(&problem, &algorithm),
        Command::Split { graph, ops } => cli::split::split(&graph, &ops),
        Command::Replicate { problem } => cli::replicate::replicate(&problem),
    }
}
