use super::advice::{Advice, Cluster, Compared, Facts, advise, least_saving};
use super::*;

#[test]
fn a_bracket_of_capacity_is_a_range_of_cores_and_a_bound_an_upper_bound() {
    // 20,000/s at a capacity between 1,385 and 1,454 per core: 14 to 15 cores, the high capacity the fewest.
    assert_eq!(cores(20_000.0, PerCore::Bracket { low: 1_385.0, high: 1_454.0 }), Span::Between(14.0, 15.0));
    // A capacity of at least 5,000/s: at most 4 cores.
    assert_eq!(cores(20_000.0, PerCore::AtLeast(5_000.0)), Span::AtMost(4.0));
    // A part of a core is a whole one.
    assert_eq!(cores(10.0, PerCore::Bracket { low: 9.0, high: 11.0 }), Span::Between(1.0, 2.0));
    assert_eq!(Span::Between(14.0, 15.0).text(|v| v.to_string(), "cores"), "14–15 cores");
    assert_eq!(Span::Between(3.0, 3.0).text(|v| v.to_string(), "cores"), "3 cores (either end of the bracket)");
    assert_eq!(Span::AtMost(4.0).text(|v| v.to_string(), "cores"), "at most 4 cores");
}

#[test]
fn cpu_hours_and_the_monthly_cost_count_a_month_of_730_hours() {
    // 13 µs a request at 20,000/s keeps 0.26 of a core busy: 189.8 CPU-hours over 730 hours.
    assert!((cpu_hours_per_month(13.0, 20_000.0) - 189.8).abs() < 1e-9);
    // 14–15 cores at 0.04 an hour, 1.2 GiB at 0.005: 408.8 + 4.38 to 438 + 4.38.
    let cost = monthly_cost(Span::Between(14.0, 15.0), 1.2, Some(0.04), Some(0.005)).unwrap();
    let Span::Between(low, high) = cost else { panic!("{cost:?}") };
    assert!((low - 413.18).abs() < 1e-9 && (high - 442.38).abs() < 1e-9, "{cost:?}");
    // A bound of cores is a bound of cost; no price, no cost.
    assert!(matches!(monthly_cost(Span::AtMost(4.0), 1.0, Some(1.0), None), Some(Span::AtMost(c)) if c == 2920.0));
    assert_eq!(monthly_cost(Span::AtMost(4.0), 1.0, None, None), None);
}

#[test]
fn with_25_ms_of_io_wait_a_third_of_a_millisecond_is_about_one_percent() {
    let d = difference_share_percent(0.8, 0.5, 25.0);
    assert!((d - 1.18).abs() < 0.01, "{d}");
    assert!((server_share_percent(0.5, 25.0) - 1.96).abs() < 0.01);
    assert_eq!(server_share_percent(2.0, 0.0), 100.0, "no I/O wait: the server is all of it");
}

#[test]
fn the_flags_refuse_what_cannot_be_sized() {
    let bad = |i: Inputs| i.checked().unwrap_err().to_string();
    assert!(bad(Inputs { traffic_rps: Some(0.0), ..Default::default() }).contains("--traffic 0"));
    assert!(bad(Inputs { replicas: Some(0), ..Default::default() }).contains("--replicas 0"));
    assert!(bad(Inputs { core_price: Some(-1.0), ..Default::default() }).contains("--core-price -1"));
    assert!(bad(Inputs { memory_price: Some(f64::NAN), ..Default::default() }).contains("--memory-price"));
    assert!(Inputs { core_price: Some(0.0), ..Default::default() }.checked().is_ok(), "free cores are a price");
    assert_eq!(parse_duration_ms("25ms"), Ok(25.0));
    assert_eq!(parse_duration_ms("1s"), Ok(1000.0));
    assert_eq!(parse_duration_ms("500us"), Ok(0.5));
    assert_eq!(parse_duration_ms("0"), Ok(0.0));
    assert!(parse_duration_ms("5parsecs").is_err() && parse_duration_ms("-5ms").is_err());
    assert!(parse_duration_ms("ms").is_err() && parse_duration_ms("25").is_err());
}

#[test]
fn the_inputs_say_which_were_assumed() {
    assert_eq!(Inputs::default().words(), "--traffic 100000 (assumed) --replicas 1 (assumed) --io-wait 0ms (assumed)");
    let given =
        Inputs { traffic_rps: Some(20_000.0), replicas: Some(12), io_wait_ms: Some(25.0), ..Default::default() };
    assert_eq!(given.words(), "--traffic 20000 --replicas 12 --io-wait 25ms");
}

fn compared(scenario: &str, current: Span, candidate: Span, wait: f64) -> Compared {
    Compared {
        scenario: scenario.into(),
        current: "node".into(),
        candidate: "rust".into(),
        current_cores: current,
        candidate_cores: candidate,
        wait_saved_percent: Some(wait),
    }
}

#[test]
fn the_advice_follows_the_savings_and_their_bounds() {
    let big = compared("get", Span::Between(26.0, 27.0), Span::Between(14.0, 15.0), 1.0);
    let small = compared("post", Span::Between(10.0, 11.0), Span::Between(9.0, 10.0), 1.0);
    let facts = |c: Vec<Compared>, cluster| Facts { compared: c, cluster, why_none: None };
    // 1 − 15/26 = 42 % at the least: worth it. 1 − 10/10: nothing.
    assert!((least_saving(big.current_cores, big.candidate_cores).unwrap() - 11.0 / 26.0).abs() < 1e-9);
    assert_eq!(advise(&facts(vec![big.clone()], Cluster::Measured)), Advice::Rewrite);
    assert_eq!(advise(&facts(vec![small.clone()], Cluster::Measured)), Advice::Nothing);
    let both = vec![small.clone(), big.clone()];
    assert_eq!(advise(&facts(both.clone(), Cluster::NotNode)), Advice::TargetedMove { scenario: "get".into() });
    // Against a single-process Node that was not clustered, clustering comes first.
    assert_eq!(advise(&facts(both, Cluster::NeedsMoreCpus)), Advice::ClusterFirst);
    // A saving in the user's wait alone is worth it too.
    let slow = compared("get", Span::Between(10.0, 11.0), Span::Between(10.0, 11.0), 6.0);
    assert_eq!(advise(&facts(vec![slow], Cluster::Measured)), Advice::Rewrite);
    // The current service's cores an upper bound: no saving can be told.
    let hidden = compared("get", Span::AtMost(3.0), Span::AtMost(2.0), 0.5);
    assert!(matches!(advise(&facts(vec![hidden], Cluster::Measured)), Advice::CannotSay(_)));
    // A candidate's upper bound still counts at its highest: at most 4 against 26–27 is worth it.
    let bound = compared("get", Span::Between(26.0, 27.0), Span::AtMost(4.0), 0.5);
    assert_eq!(advise(&facts(vec![bound], Cluster::NotNode)), Advice::Rewrite);
    assert!(matches!(advise(&facts(vec![], Cluster::NotNode)), Advice::CannotSay(_)));
    let none = Facts { compared: vec![], cluster: Cluster::NotNode, why_none: Some("no capacity search".into()) };
    assert_eq!(advise(&none), Advice::CannotSay("no capacity search".into()));
}

#[test]
fn the_sentence_names_the_figures_and_the_bounds() {
    let f = Facts {
        compared: vec![compared("get", Span::Between(26.0, 27.0), Span::AtMost(4.0), 0.5)],
        cluster: Cluster::NotNode,
        why_none: None,
    };
    let s = super::advice::sentence(&f, 20_000.0);
    let start = "The figures support a rewrite: get: 26–27 cores with node against at most 4 cores";
    assert!(s.starts_with(start), "{s}");
    assert!(s.contains("0.5 % of a user's wait saved at 20,000/s") && s.contains("a bound (`at most`)"), "{s}");
    // A candidate whose server time is longer says so, not as a negative saving.
    let slower = Facts { compared: vec![compared("get", Span::Between(26.0, 27.0), Span::AtMost(4.0), -3.0)], ..f };
    let s = super::advice::sentence(&slower, 20_000.0);
    assert!(s.contains("3.0 % more of a user's wait") && !s.contains("-3.0"), "{s}");
}

/// The bombardier run on this project's machine: java's capacity windows measured its warm-up, so it is not sized,
/// and its server's own time is its closed-loop p50, not the p50 of a warm-up at its "capacity"; node, sized, keeps
/// the p50 of its windows at its capacity.
#[test]
fn a_subject_not_sized_takes_its_server_time_from_the_closed_loop() {
    let text = include_str!("../../../../docs/results/epyc-2vcpu-d/bombardier/benchmark.json");
    let b: crate::schema::Benchmark = serde_json::from_str(text).unwrap();
    let rows = rows(&b, &Inputs::default());
    let of = |name: &str| rows.iter().find(|r| r.subject == name).unwrap().sizings[0].clone();
    let java = of("java");
    assert!(java.cores.as_ref().is_err_and(|why| why.contains("warm-up")), "{:?}", java.cores);
    assert!(matches!(java.p50, Some((_, LatencySource::ClosedLoop { connections: 50 }))), "{:?}", java.p50);
    let node = of("node");
    assert!(node.cores.is_ok() && matches!(node.p50, Some((_, LatencySource::Capacity))), "{:?}", node.p50);
}
