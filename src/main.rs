fn main() -> std::process::ExitCode {
    scalpel::cli::main()
}
