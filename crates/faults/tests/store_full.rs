//! The store-full line: the first 507 of a server process says so on stderr, once, without `--log` (CONTRACT.md,
//! "Running a server"), in every twin. A load that fills the store goes on getting answers, and this line is what
//! tells its user that those answers are 507s.

use faults::{Limits, Server, kinds, post_bytes, status};

#[test]
fn the_first_507_says_once_that_the_store_is_full() {
    let dir = std::env::temp_dir().join(format!("faults-store-full-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    for kind in kinds("the_first_507_says_once_that_the_store_is_full") {
        let path = dir.join(format!("{}.stderr", kind.name()));
        // 10,000 is the seed alone: the store is full from the start.
        let mut server = Server::start_with_stderr(kind, Limits::SHORT, &["--max-users", "10000"], &path);
        let body = r#"{"name":"Ada","email":"ada@example.com"}"#;
        for _ in 0..3 {
            assert_eq!(status(&faults::exchange(server.addr, &post_bytes(body))), 507, "{}", kind.name());
        }
        let (exit, _) = server.terminate(Limits::SHORT.shutdown * 2).expect("the server exits on SIGTERM");
        assert!(exit.success(), "{}: {exit}", kind.name());
        let stderr = std::fs::read_to_string(&path).expect("the server's stderr");
        let expected = "store full: answering 507 to POST /users until restart (--max-users 10000)";
        assert_eq!(stderr.lines().collect::<Vec<_>>(), [expected], "{}: its stderr, three 507s in", kind.name());
    }
    std::fs::remove_dir_all(&dir).ok();
}
