# shellcheck shell=bash
# Sourced by .ci/run: start a throw-away PostgreSQL server for the `afp genui-stats --db` tests.
#
# On success it exports AFP_TEST_POSTGRES_URL=postgresql://afp@127.0.0.1:PORT/afp_test (trust
# auth, listening on 127.0.0.1 only, data in a temp dir removed at exit). On any failure it says
# why and returns 0 without exporting, so the tests skip with a reason and CI goes on.
# Every step is time-bounded. The work runs in a subshell: the caller's `set -euo pipefail`,
# variables and traps are not touched (except one EXIT trap to stop the server, if none is set).

_afp_pg_start() (
  set +e +u
  set -o pipefail
  log() { echo "postgres: $*" >&2; }
  find_bindir() {
    local d
    d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
    if command -v pg_config >/dev/null 2>&1; then
      d=$(pg_config --bindir 2>/dev/null)
      if [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
    fi
    return 1
  }

  bindir=$(find_bindir)
  if [ -z "$bindir" ]; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
      log "no PostgreSQL binaries and no way to install them (needs root and apt-get)"
      return 1
    fi
    log "installing the Debian package postgresql (bounded to 7 minutes)"
    export DEBIAN_FRONTEND=noninteractive
    if ! timeout 120 apt-get update -qq >/dev/null 2>&1; then
      log "apt-get update failed or timed out"
      return 1
    fi
    if ! timeout 300 apt-get install -y -qq --no-install-recommends postgresql >/dev/null 2>&1; then
      log "apt-get install postgresql failed or timed out"
      return 1
    fi
    bindir=$(find_bindir) || { log "postgresql installed but initdb not found"; return 1; }
  fi

  # initdb refuses to run as root: use the package's postgres user when we are root. (An array,
  # not a function: `timeout` can only run programs.)
  if [ "$(id -u)" = 0 ]; then
    if ! id postgres >/dev/null 2>&1; then
      log "running as root but there is no postgres user to run the server as"
      return 1
    fi
    as_pg=(runuser -u postgres --)
  else
    as_pg=()
  fi

  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') \
    || { log "could not find a free port"; return 1; }
  dir=$(mktemp -d /tmp/afp-pg.XXXXXX) || { log "mktemp failed"; return 1; }
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  echo "$dir" > "$dir.dir"  # let the caller find it for cleanup

  if ! timeout 120 "${as_pg[@]}" "$bindir/initdb" -D "$dir/data" -U afp --auth=trust -E UTF8 \
      --no-locale >"$dir/initdb.log" 2>&1; then
    log "initdb failed: $(tail -n 1 "$dir/initdb.log")"
    return 1
  fi
  if ! timeout 90 "${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null 2>&1; then
    log "the server did not start: $(tail -n 1 "$dir/server.log" 2>/dev/null)"
    return 1
  fi
  if ! timeout 30 "${as_pg[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U afp afp_test \
      >/dev/null 2>&1; then
    log "createdb failed"
    timeout 30 "${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
    return 1
  fi
  echo "$bindir $dir $port"
)

_afp_pg_stop() {
  if [ -n "${_AFP_PG_DIR:-}" ] && [ -d "$_AFP_PG_DIR" ]; then
    if [ "$(id -u)" = 0 ]; then
      timeout 30 runuser -u postgres -- "$_AFP_PG_BIN/pg_ctl" -D "$_AFP_PG_DIR/data" \
        -m immediate stop >/dev/null 2>&1 || true
    else
      timeout 30 "$_AFP_PG_BIN/pg_ctl" -D "$_AFP_PG_DIR/data" -m immediate stop \
        >/dev/null 2>&1 || true
    fi
    rm -rf "$_AFP_PG_DIR" "$_AFP_PG_DIR.dir"
  fi
}

if _afp_pg_info=$(_afp_pg_start); then
  read -r _AFP_PG_BIN _AFP_PG_DIR _afp_pg_port <<<"$_afp_pg_info"
  export AFP_TEST_POSTGRES_URL="postgresql://afp@127.0.0.1:${_afp_pg_port}/afp_test"
  echo "postgres: started a throw-away server, AFP_TEST_POSTGRES_URL=$AFP_TEST_POSTGRES_URL"
  if [ -z "$(trap -p EXIT)" ]; then
    trap _afp_pg_stop EXIT
  fi
else
  echo "postgres: no server started; the PostgreSQL tests will be skipped"
  # A half-made data dir (initdb ok, start failed) is not worth keeping.
  for _afp_pg_marker in /tmp/afp-pg.*.dir; do
    [ -f "$_afp_pg_marker" ] || continue
    _afp_pg_d=$(cat "$_afp_pg_marker")
    if [ ! -f "$_afp_pg_d/data/postmaster.pid" ]; then rm -rf "$_afp_pg_d" "$_afp_pg_marker"; fi
  done
fi
unset _afp_pg_info _afp_pg_port _afp_pg_marker _afp_pg_d
true
