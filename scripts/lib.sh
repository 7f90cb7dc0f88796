# Shared by the scripts in this folder (sourced, not run): choose the Node, build the servers, start one on a free
# port, stop it, and find the tools `go install` installed. The server functions expect ROOT (the repository root)
# to be set.

# go_bin_on_path: puts the folder `go install` installs into at the front of PATH (exported, so that the programs
# started later find the tools there too), when Go is installed. That folder is $(go env GOBIN) when set, else the
# bin folder of the first entry of $(go env GOPATH); a fresh shell, sudo or CI rarely has it on PATH. In front,
# because a games folder earlier on PATH may hold Debian's game called bombardier.
go_bin_on_path() {
  command -v go >/dev/null 2>&1 || return 0
  local dir
  dir=$(GOTOOLCHAIN=local go env GOBIN)
  if [ -z "$dir" ]; then
    dir=$(GOTOOLCHAIN=local go env GOPATH)
    dir="${dir%%:*}/bin"
  fi
  case ":$PATH:" in
    *":$dir:"*) ;;
    *) export PATH="$dir:$PATH" ;;
  esac
}

# choose_node: sets NODE (the program) and NODE_SOURCE (env, project or path) by the rule of
# crates/fairpair/src/subjects/node.rs, so that the scripts run the Node the harness and the fault suites run: FAIRPAIR_NODE
# when set, else the project's own (tools/node, pinned Node 26) when installed, else `node` on PATH, the machine's,
# which may be any version, one past its end of life included.
choose_node() {
  if [ -n "${FAIRPAIR_NODE:-}" ]; then
    NODE=$FAIRPAIR_NODE NODE_SOURCE=env
  elif [ -f "$ROOT/tools/node/node_modules/.bin/node" ]; then
    NODE="$ROOT/tools/node/node_modules/.bin/node" NODE_SOURCE=project
  else
    NODE=node NODE_SOURCE=path
  fi
}

build_servers() {
  echo "building users-server (release)…" >&2
  cargo build --release --quiet -p users-server
}

# start_server KIND [FLAGS…]: starts rust, node, node-cluster, go (built by scripts/build-go) or java (built by
# scripts/build-java; a --workers N among FLAGS also gives the JVM -XX:ActiveProcessorCount=N) on a free port of
# 127.0.0.1, waits for its start-up line, and sets SERVER_PID and SERVER_PORT. The server's output goes to $SERVER_LOG.
start_server() {
  local kind=$1
  shift
  [ -n "${NODE:-}" ] || choose_node
  SERVER_LOG=$(mktemp)
  case $kind in
    rust) "$ROOT/target/release/users-server" --host 127.0.0.1 --port 0 "$@" >"$SERVER_LOG" 2>&1 & ;;
    node) "$NODE" "$ROOT/servers-node/server.js" --host 127.0.0.1 --port 0 "$@" >"$SERVER_LOG" 2>&1 & ;;
    node-cluster) "$NODE" "$ROOT/servers-node/server.js" --host 127.0.0.1 --port 0 --workers "$(nproc)" "$@" >"$SERVER_LOG" 2>&1 & ;;
    go) "${CARGO_TARGET_DIR:-$ROOT/target}/go/users-server-go" --host 127.0.0.1 --port 0 "$@" >"$SERVER_LOG" 2>&1 & ;;
    java)
      local cpus=() previous=""
      for arg in "$@"; do
        [ "$previous" = --workers ] && cpus=("-XX:ActiveProcessorCount=$arg")
        previous=$arg
      done
      java "${cpus[@]}" -jar "${CARGO_TARGET_DIR:-$ROOT/target}/java/users-server-java.jar" \
        --host 127.0.0.1 --port 0 "$@" >"$SERVER_LOG" 2>&1 &
      ;;
    *) echo "unknown server kind: $kind (rust, node, node-cluster, go or java)" >&2; return 2 ;;
  esac
  SERVER_PID=$!
  local line="" tries=200
  # A JVM with Spring takes seconds to start on one core (servers-java/README.md), more on a loaded machine.
  [ "$kind" = java ] && tries=600
  for _ in $(seq "$tries"); do
    line=$(grep -m1 '^listening on ' "$SERVER_LOG" || true)
    [ -n "$line" ] && break
    sleep 0.05
  done
  if [ -z "$line" ]; then
    echo "the $kind server did not start:" >&2
    cat "$SERVER_LOG" >&2
    return 1
  fi
  # "listening on http://127.0.0.1:PORT (10000 users, N workers)"
  SERVER_PORT=$(sed -E 's#^listening on http://[^:]+:([0-9]+).*#\1#' <<<"$line")
}

# stop_server: SIGTERM, then wait for the exit (the servers drain and exit 0 within 10 s).
stop_server() {
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
}

# rss_kib PID: resident memory of a process and all its descendants, in KiB.
rss_kib() {
  local total=0 pid
  for pid in $(descendants "$1"); do
    total=$((total + $(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# descendants PID: the process and its descendants, by parent pid in /proc/*/stat (no `children` file here).
descendants() {
  local all=("$1") i=0 p
  while [ $i -lt ${#all[@]} ]; do
    for p in $(awk -v pp="${all[$i]}" '{ sub(/.*\) /, ""); if ($2 == pp) print FILENAME }' /proc/[0-9]*/stat 2>/dev/null | cut -d/ -f3); do
      all+=("$p")
    done
    i=$((i + 1))
  done
  echo "${all[@]}"
}
