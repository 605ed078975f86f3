// scratch driver (not committed)
use execscope_oracle::{IsolationChoice, Job, Oracle, OracleConfig};
use execscope_record::Language;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let lang: Language = args[1].parse().unwrap();
    let code = std::fs::read_to_string(&args[2]).unwrap();
    let entry = &args[3];
    let tests: Vec<String> = args[4..].to_vec();
    let iso: IsolationChoice = std::env::var("ISO")
        .unwrap_or("auto".into())
        .parse()
        .unwrap();
    let cfg = OracleConfig {
        workers: 1,
        isolation: iso,
        ..OracleConfig::default()
    };
    let t = std::time::Instant::now();
    let o = Oracle::new(cfg).unwrap();
    eprintln!("start {:?} {}", t.elapsed(), o.isolation());
    let job = Job::new(code, tests).entry(entry).language(lang);
    for _ in 0..std::env::var("N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
    {
        let t = std::time::Instant::now();
        let r = o.run_job(&job);
        match r {
            Ok(r) => println!(
                "{:?} {:?} {:?} {:?}",
                t.elapsed(),
                r.outcomes.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
                r.observed,
                r.test_ms
            ),
            Err(e) => println!("ERR {e}"),
        }
    }
    eprintln!("{}", o.runner_string_for(lang));
}
