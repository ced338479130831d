# shellcheck shell=bash
# Shared by deploy/edge/install.sh and deploy/cloud/install.sh (sourced, not run).
#
# Every change goes through these functions so that the scripts are idempotent (a file whose
# content, mode and owner are already right is left alone and reported "ok"), honour --root (every
# path is written under ROOT, users and groups go into ROOT/etc) and --dry-run (changes are only
# reported). Owners are numeric ids read from ROOT/etc/passwd and ROOT/etc/group: under --root the
# service user exists only there, never in this machine's own files.

ROOT=""
DRY_RUN=false
CHANGES=0

say() { printf '%s\n' "$*"; }
step() { printf '\n== %s\n' "$*"; }
ok() { printf '   ok       %s\n' "$*"; }
changed() {
  CHANGES=$((CHANGES + 1))
  if $DRY_RUN; then printf '   would    %s\n' "$*"; else printf '   changed  %s\n' "$*"; fi
}
warn() { printf '   WARNING  %s\n' "$*" >&2; }
# die "what went wrong" "what to do about it"
die() {
  printf '\nError: %s\n' "$1" >&2
  [ -n "${2:-}" ] && printf 'Fix: %s\n' "$2" >&2
  exit 1
}

# The path as written on this machine: under ROOT with --root.
r() { printf '%s%s' "$ROOT" "$1"; }

# Runs a command that changes something, unless --dry-run.
run() { $DRY_RUN || "$@"; }

set_root() {
  [ -n "$1" ] || die "--root needs a directory" "pass --root /path/to/empty/dir"
  mkdir -p "$1" || die "cannot create $1" "choose a directory you can write"
  ROOT="$(cd "$1" && pwd)"
  [ "$ROOT" = "/" ] && ROOT=""
  return 0
}

require_root_user() {
  [ "$(id -u)" -eq 0 ] || die "this script changes users, groups and files owned by root" "run it with sudo"
}

require_command() { # name, package
  command -v "$1" >/dev/null 2>&1 || die "$1 is not installed" "sudo apt-get install -y $2"
}

require_node() {
  require_command node nodejs
  local version
  version="$(node -p 'process.versions.node')"
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' ||
    die "Node.js $version is too old: the yard service needs 20.19 or later" \
      "install Node.js 20.19+ (e.g. the NodeSource or Debian backports package) and run again"
}

# --- users and groups -------------------------------------------------------------------------

prefix_args() { [ -n "$ROOT" ] && printf -- '--prefix\n%s\n' "$ROOT"; return 0; }

# A throwaway root starts without account files; useradd --prefix needs them to exist.
seed_account_files() {
  [ -n "$ROOT" ] || return 0
  local f
  run mkdir -p "$ROOT/etc"
  for f in passwd group shadow gshadow; do
    [ -e "$ROOT/etc/$f" ] && continue
    changed "$(r /etc/$f) (new account file in the throwaway root)"
    $DRY_RUN && continue
    case $f in
    passwd) printf 'root:x:0:0:root:/root:/bin/sh\n' >"$ROOT/etc/passwd" ;;
    group) printf 'root:x:0:\n' >"$ROOT/etc/group" ;;
    shadow) (umask 077 && printf 'root:*:0:0:99999:7:::\n' >"$ROOT/etc/shadow") ;;
    gshadow) (umask 077 && printf 'root:*::\n' >"$ROOT/etc/gshadow") ;;
    esac
  done
}

has_group() { [ -e "$(r /etc/group)" ] && grep -q "^$1:" "$(r /etc/group)"; }
has_user() { [ -e "$(r /etc/passwd)" ] && grep -q "^$1:" "$(r /etc/passwd)"; }

ensure_group() {
  if has_group "$1"; then
    ok "group $1"
  else
    changed "group $1 (system group)"
    # shellcheck disable=SC2046
    run groupadd $(prefix_args) --system "$1" || die "groupadd $1 failed" "check $(r /etc/group) is writable"
  fi
}

# ensure_user NAME HOME "group1,group2": a system user with its own group, no login, no password.
ensure_user() {
  local name=$1 home=$2 groups=$3 g missing=""
  if ! has_user "$name"; then
    changed "user $name (system user, home $home, groups $groups, no login shell)"
    # shellcheck disable=SC2046
    run useradd $(prefix_args) --system --user-group --home-dir "$home" --no-create-home \
      --shell /usr/sbin/nologin ${groups:+--groups "$groups"} --comment "yard service" "$name" ||
      die "useradd $name failed" "check $(r /etc/passwd) is writable"
    return 0
  fi
  for g in ${groups//,/ }; do
    grep -Eq "^$g:[^:]*:[^:]*:(.*,)?$name(,|$)" "$(r /etc/group)" || missing="$missing,$g"
  done
  if [ -n "$missing" ]; then
    changed "user $name joins ${missing#,}"
    # shellcheck disable=SC2046
    run usermod $(prefix_args) --append --groups "${missing#,}" "$name"
  else
    ok "user $name${groups:+ in $groups}"
  fi
}

uid_of() { awk -F: -v n="$1" '$1 == n { print $3 }' "$(r /etc/passwd)"; }
gid_of() { awk -F: -v n="$1" '$1 == n { print $3 }' "$(r /etc/group)"; }
# "user:group" as numeric ids in ROOT (root is 0 everywhere). A dry run may not have created them yet.
ids_of() {
  local u g
  u=$([ "$1" = root ] && echo 0 || uid_of "$1")
  g=$([ "$2" = root ] && echo 0 || gid_of "$2")
  if [ -z "$u" ] || [ -z "$g" ]; then
    $DRY_RUN && { printf '%s:%s' "$1" "$2"; return 0; }
    die "user $1 or group $2 does not exist in $(r /etc)" "run the script again without --dry-run"
  fi
  printf '%s:%s' "$u" "$g"
}

# --- files ------------------------------------------------------------------------------------

# Mode and owner as stat prints them: "750 999:998".
stat_of() { stat -c '%a %u:%g' "$1"; }

fix_mode_owner() { # path mode user group
  local path=$1 mode=$2 ids want
  ids=$(ids_of "$3" "$4")
  want="$((8#$mode)) $ids"
  # stat prints the octal mode; compare as numbers so 0750 and 750 agree.
  read -r have_mode have_ids <<<"$(stat_of "$path")"
  if [ "$((8#$have_mode)) $have_ids" != "$want" ]; then
    changed "$path mode $mode owner $3:$4"
    run chown -h "$ids" "$path"
    run chmod "$mode" "$path"
  fi
}

ensure_dir() { # path(in target) mode user group
  local path
  path=$(r "$1")
  if [ -d "$path" ]; then
    fix_mode_owner "$path" "$2" "$3" "$4"
    ok "$path/"
  else
    changed "$path/ (mode $2, $3:$4)"
    run mkdir -p "$path"
    $DRY_RUN || fix_mode_owner "$path" "$2" "$3" "$4" >/dev/null
  fi
}

# install_content DEST MODE USER GROUP < content: writes DEST only when its content differs
# (atomically: a temporary file beside it, then rename), then fixes mode and owner.
install_content() {
  local dest mode=$2 user=$3 group=$4 tmp
  dest=$(r "$1")
  tmp=$(mktemp)
  cat >"$tmp"
  if [ -f "$dest" ] && cmp -s "$tmp" "$dest"; then
    rm -f "$tmp"
    fix_mode_owner "$dest" "$mode" "$user" "$group"
    ok "$dest"
    return 0
  fi
  changed "$dest ($([ -f "$dest" ] && echo "new content" || echo "new file"), mode $mode, $user:$group)"
  if $DRY_RUN; then rm -f "$tmp"; return 0; fi
  mkdir -p "$(dirname "$dest")"
  local staged
  staged="$(dirname "$dest")/.$(basename "$dest").new"
  cp "$tmp" "$staged" && rm -f "$tmp"
  chown "$(ids_of "$user" "$group")" "$staged"
  chmod "$mode" "$staged"
  mv -f "$staged" "$dest"
}

# config_file_target PATH DIR: true when PATH, a file a config names, may be written by the installer:
# an absolute, plain path (no "." or ".." parts, no control characters) below DIR, whose folder in
# ROOT does not lead elsewhere through a symbolic link, and which is not itself a link. Installing
# a file a config names anywhere else would let a config write as root where it likes (a crontab).
config_file_target() {
  local path=$1 dir=$2 parent top
  [[ $path != *[[:cntrl:]]* ]] || return 1
  case $path in "$dir"/?*) ;; *) return 1 ;; esac
  case "$path/" in */./* | */../* | *//*) return 1 ;; esac
  [ ! -L "$(r "$path")" ] || return 1
  parent=$(realpath -m -- "$(r "$(dirname "$path")")") || return 1
  top=$(realpath -m -- "$(r "$dir")") || return 1
  case $parent/ in "$top"/*) return 0 ;; *) return 1 ;; esac
}

ensure_symlink() { # target link(in target root)
  local link
  link=$(r "$2")
  if [ -L "$link" ] && [ "$(readlink "$link")" = "$1" ]; then
    ok "$link -> $1"
    return 0
  fi
  changed "$link -> $1"
  run mkdir -p "$(dirname "$link")"
  run ln -sfn "$1" "$link"
}

# --- the application release -----------------------------------------------------------------

APP_DIR=/opt/yard

# A release's id: the package version and a digest of what runs (the build and the lock file), so
# the same build installs to the same folder and a second run finds it there.
release_id() {
  local source=$1 version digest
  version=$(node -p "require('$source/package.json').version")
  digest=$(cd "$source" && { find dist -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; sha256sum package-lock.json; } | sha256sum | cut -c1-12)
  printf '%s-%s' "$version" "$digest"
}

check_source() { # source dir
  local s=$1 missing=""
  [ -f "$s/package.json" ] || die "$s is not a checkout of the yard service" "pass --source <checkout> or run the script from the checkout"
  for f in dist/edge/main.js dist/cloud/main.js dist/ui node_modules/.bin/pm2 node_modules/better-sqlite3; do
    [ -e "$s/$f" ] || missing="$missing $f"
  done
  [ -z "$missing" ] || die "the checkout $s is not built (missing:$missing)" \
    "cd $s && npm ci && npm run build (npm ci also builds the web apps), then run this again"
}

# Copies the built checkout into APP_DIR/releases/<id> (production dependencies only) unless that
# release is already there. Prints nothing on stdout; sets RELEASE_ID.
install_release() {
  local source=$1 dest partial
  RELEASE_ID=$(release_id "$source")
  dest=$(r "$APP_DIR/releases/$RELEASE_ID")
  if [ -f "$dest/.complete" ]; then
    ok "$dest (release $RELEASE_ID already installed)"
    return 0
  fi
  changed "$dest (release $RELEASE_ID from $source: the build, production node_modules, pm2)"
  $DRY_RUN && return 0
  partial="$dest.partial"
  rm -rf "$partial"
  mkdir -p "$partial"
  cp -a "$source/package.json" "$source/package-lock.json" "$source/dist" "$source/node_modules" "$partial/"
  mkdir -p "$partial/deploy"
  cp -a "$source/deploy/lib" "$partial/deploy/"
  # Development tools (TypeScript, vite, test runners) are not needed to run: about 2/3 of the size.
  (cd "$partial" && npm prune --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) ||
    die "npm prune failed in $partial" "check the disk space and that npm works, then run again"
  printf 'release %s\nsource %s\n' "$RELEASE_ID" \
    "$(git -C "$source" describe --always --dirty 2>/dev/null || echo unknown)" >"$partial/RELEASE"
  chown -R 0:0 "$partial"
  chmod -R go-w "$partial"
  mv "$partial" "$dest"
  touch "$dest/.complete"
}

# The release `current` points at, or nothing.
current_release() {
  local link
  link=$(r "$APP_DIR/current")
  [ -L "$link" ] && basename "$(readlink "$link")"
  return 0
}

# Keeps the current and previous releases, removes older ones.
prune_releases() {
  local dir keep_cur keep_prev name path
  dir=$(r "$APP_DIR/releases")
  [ -d "$dir" ] || return 0
  keep_cur=$(current_release)
  keep_prev=""
  [ -L "$(r "$APP_DIR/previous")" ] && keep_prev=$(basename "$(readlink "$(r "$APP_DIR/previous")")")
  for path in "$dir"/*; do
    [ -e "$path" ] || continue
    name=$(basename "$path")
    case $name in "$keep_cur" | "$keep_prev") continue ;; esac
    $DRY_RUN && [ "$name" = "$RELEASE_ID" ] && continue
    changed "remove old release $dir/$name"
    run rm -rf "${dir:?}/$name"
  done
}

# switch_release UNIT ROLE CONFIG: when RELEASE_ID is not the current release, stops the service,
# backs the database up (SQLite: its online backup; PostgreSQL: pg_dump), migrates it with the new
# release, keeps the old release as `previous` and points `current` at the new one. Starting is the
# caller's next step. A failure before the switch leaves the previous release as it was.
switch_release() {
  local unit=$1 role=$2 config=$3 current db url backup stamp
  current=$(current_release)
  if [ "$current" = "$RELEASE_ID" ]; then
    ok "$(r $APP_DIR/current) is release $RELEASE_ID"
    return 0
  fi
  if [ -n "$current" ]; then service_stop "$unit"; fi
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  url=""
  [ -f "$(r "$config")" ] && url=$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).database?.url ?? ""' "$(r "$config")")
  db=$(r /var/lib/yard/yard.db)
  if [ -n "$url" ] && [ -n "$current" ]; then
    backup=/var/lib/yard/backups/$role-$stamp-before-$RELEASE_ID.pgdump
    changed "back up the PostgreSQL database to $(r "$backup") (pg_dump)"
    if ! $DRY_RUN; then
      command -v pg_dump >/dev/null || die "pg_dump is not installed: the database was not backed up, nothing was switched" \
        "sudo apt-get install -y postgresql-client (or take your own backup and install it then)"
      (umask 077 && pg_dump --format=custom --file="$(r "$backup")" "$url") ||
        die "pg_dump failed: nothing was switched" "check the database URL in $(r "$config") and the disk space, then run again"
      chown "$(ids_of yard yard)" "$(r "$backup")"
    fi
  elif [ -z "$url" ] && [ -f "$db" ]; then
    backup=/var/lib/yard/backups/yard-$stamp-before-$RELEASE_ID.db
    changed "back up the database to $(r "$backup")"
    run as_user yard node "$(r "$APP_DIR/releases/$RELEASE_ID")/deploy/lib/sqlite-backup.mjs" "$db" "$(r "$backup")" >/dev/null ||
      die "the backup failed: nothing was switched" "check the disk space in $(r /var/lib/yard), then run again"
  fi
  changed "migrate the database with release $RELEASE_ID"
  run as_user yard env YARD_ROLE="$role" YARD_CONFIG_FILE="$(r "$config")" YARD_DATA_DIR="$(r /var/lib/yard)" \
    YARD_LOG_LEVEL=warn node "$(r "$APP_DIR/releases/$RELEASE_ID")/deploy/lib/migrate.mjs" >/dev/null ||
    die "the migration failed: the previous release is untouched${current:+ (start it again: systemctl start $unit)}" \
      "read the error above; the backup is in $(r /var/lib/yard/backups)"
  if [ -n "$current" ]; then ensure_symlink "releases/$current" "$APP_DIR/previous"; fi
  ensure_symlink "releases/$RELEASE_ID" "$APP_DIR/current"
}

# rollback_release UNIT ROLE CONFIG: back to the previous release after an upgrade. Stops the
# service, restores the SQLite backup taken before the upgrade to the current release (the database
# as it is goes to backups/ first, nothing is deleted), swaps current and previous, starts the
# service. A PostgreSQL cloud is not restored here: the pg_restore command is printed.
rollback_release() {
  local unit=$1 role=$2 config=$3 current previous backup url stamp
  current=$(current_release)
  previous=""
  [ -L "$(r "$APP_DIR/previous")" ] && previous=$(basename "$(readlink "$(r "$APP_DIR/previous")")")
  [ -n "$current" ] && [ -n "$previous" ] && [ -d "$(r "$APP_DIR/releases/$previous")" ] ||
    die "there is no previous release to roll back to (${APP_DIR}/previous)" \
      "install the older release's checkout instead: git checkout <tag> && npm ci && npm run build && sudo $0"
  say "   rolling back from $current to $previous"
  service_stop "$unit"
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  url=$(node -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).database?.url ?? ""' "$(r "$config")")
  if [ -n "$url" ]; then
    backup=$(ls -1 "$(r /var/lib/yard/backups)"/$role-*-before-"$current".pgdump 2>/dev/null | tail -n 1)
    warn "PostgreSQL is not restored by this script. Before starting, restore the dump taken before the upgrade:"
    warn "  pg_restore --clean --if-exists --dbname '<the database URL>' ${backup:-<the .pgdump in /var/lib/yard/backups>}"
  else
    backup=$(ls -1 "$(r /var/lib/yard/backups)"/yard-*-before-"$current".db 2>/dev/null | tail -n 1)
    [ -n "$backup" ] || die "no backup taken before $current in $(r /var/lib/yard/backups)" \
      "the previous release may not open a database the newer one migrated; restore a backup by hand (docs/install.md, \"Upgrade and roll back\")"
    changed "keep the database as it is in $(r /var/lib/yard/backups)/yard-$stamp-rolled-back-from-$current.db"
    run as_user yard node "$(r "$APP_DIR/releases/$previous")/deploy/lib/sqlite-backup.mjs" "$(r /var/lib/yard/yard.db)" \
      "$(r /var/lib/yard/backups)/yard-$stamp-rolled-back-from-$current.db" >/dev/null
    changed "restore $backup to $(r /var/lib/yard/yard.db)"
    run rm -f "$(r /var/lib/yard/yard.db)-wal" "$(r /var/lib/yard/yard.db)-shm"
    run as_user yard cp "$backup" "$(r /var/lib/yard/yard.db)"
  fi
  ensure_symlink "releases/$current" "$APP_DIR/previous"
  ensure_symlink "releases/$previous" "$APP_DIR/current"
  service_start "$unit"
}

# --- services ----------------------------------------------------------------------------------

# True when this run manages the live machine's services (not --root, systemd running).
live_systemd() { [ -z "$ROOT" ] && [ -d /run/systemd/system ]; }

# The pm2 unit: systemd starts the pm2 daemon as the service user, and pm2 starts the apps of the
# ecosystem file (not `pm2 resurrect` of a saved list, as `pm2 startup` writes it: what runs after
# a reboot is then always what the installed files say). UMask 0027: nothing the service creates
# is readable by other users (the database is 0600 by itself).
write_pm2_unit() { # unit-name description ecosystem-file user
  local unit=$1 description=$2 ecosystem=$3 user=$4 home nodedir
  home=/var/lib/yard
  nodedir=$(dirname "$(command -v node)")
  install_content "/etc/systemd/system/$unit.service" 0644 root root <<EOF
# Written by deploy/*/install.sh: the yard service's pm2 daemon, running as $user.
[Unit]
Description=$description (pm2)
After=network-online.target
Wants=network-online.target

[Service]
Type=forking
User=$user
Group=$user
UMask=0027
LimitNOFILE=65536
Environment=PATH=$nodedir:/usr/local/bin:/usr/bin:/bin
Environment=PM2_HOME=$home/.pm2
PIDFile=$home/.pm2/pm2.pid
Restart=on-failure
ExecStart=$APP_DIR/current/node_modules/.bin/pm2 start $ecosystem
ExecReload=$APP_DIR/current/node_modules/.bin/pm2 reload $ecosystem
ExecStop=$APP_DIR/current/node_modules/.bin/pm2 kill

[Install]
WantedBy=multi-user.target
EOF
  # What `systemctl enable` makes; done by hand so that it works under --root too.
  ensure_symlink "/etc/systemd/system/$unit.service" "/etc/systemd/system/multi-user.target.wants/$unit.service"
}

service_stop() { # unit
  if live_systemd; then
    if systemctl is-active --quiet "$1"; then
      changed "stop $1"
      run systemctl stop "$1"
    fi
  else
    say "   (no systemd here or --root: not stopping $1)"
  fi
}

# service_start UNIT [restart]: starts the unit unless it runs; with "restart", a running unit is
# restarted (its config, process file or unit changed).
service_start() {
  if live_systemd; then
    run systemctl daemon-reload
    if systemctl is-active --quiet "$1" && [ "${2:-}" = restart ]; then
      changed "restart $1 (its files changed)"
      run systemctl restart "$1" ||
        die "$1 did not restart" "journalctl -u $1 -n 50; the app's log is in /var/log/yard/"
    elif systemctl is-active --quiet "$1"; then
      ok "$1 running"
    else
      changed "start $1"
      run systemctl start "$1" ||
        die "$1 did not start" "journalctl -u $1 -n 50; the app's log is in /var/log/yard/"
    fi
  else
    say "   (no systemd here or --root: start it with: systemctl daemon-reload && systemctl start $1)"
  fi
}

# Runs a command as the service user by its numeric ids in ROOT (works under --root too, where the
# user is not in this machine's passwd).
as_user() { # user command...
  local user=$1 ids
  shift
  ids=$(ids_of "$user" "$user")
  setpriv --reuid="${ids%%:*}" --regid="${ids##*:}" --clear-groups -- "$@"
}

# The ecosystem file finds the root it was installed in from its own place (ROOT/etc/yard), so the
# same file runs the installed paths on the box and in a throwaway root.
ecosystem_header() {
  cat <<'EOF'
// Written by deploy/*/install.sh. pm2 process file of the installed yard service:
//   pm2 start <this file>   (the systemd unit does this as the service user at boot)
// Paths are relative to the root this file is installed in (it lives in <root>/etc/yard), so the
// file works the same on the box and in a throwaway root (--root) the installer was tested in.
const { join, resolve } = require('node:path');
const root = resolve(__dirname, '..', '..');
const at = (path) => join(root, path);
EOF
}

# The logrotate file for the pm2 logs: copytruncate, because pm2 keeps the files open.
write_logrotate() { # name logs...
  local name=$1
  shift
  install_content "/etc/logrotate.d/$name" 0644 root root <<EOF
# Written by deploy/*/install.sh: the yard service's logs (pm2 writes them and keeps them open, so
# they are copied and truncated rather than moved).
$* {
	su yard yard
	daily
	rotate 14
	maxsize 50M
	missingok
	notifempty
	compress
	delaycompress
	copytruncate
}
EOF
}
