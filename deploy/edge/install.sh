#!/usr/bin/env bash
# Installs (or upgrades) the yard edge on a Debian / Raspberry Pi OS box. docs/install.md, "Install on a
# yard box". Run it from a built checkout (npm ci && npm run build) as root; running it again with
# the same arguments changes nothing.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/install-common.sh
. "$HERE/../lib/install-common.sh"

usage() {
  cat <<'EOF'
Usage: sudo deploy/edge/install.sh [--config <site>.edge.json] [options]

Installs the yard edge: the service user "yard" (groups gpio, dialout), the app in
/opt/yard/releases/<release> (/opt/yard/current), /etc/yard/edge.json, data in /var/lib/yard, logs
in /var/log/yard, pm2 under systemd (yard-edge.service), log rotation and udev rules for serial
relay boards. An upgrade (a new build) stops the edge, backs the database up, migrates it, switches
/opt/yard/current and starts the edge; the previous release stays as /opt/yard/previous.

Options:
  --config <file>        The edge config written by `npm run site:add` at the cloud (required the
                         first time; later runs keep /etc/yard/edge.json unless given again).
                         A .crt/.key/CA file its tls/mqtt sections name is installed too when it
                         lies beside <file>.
  --http-port <port>     Set http.port in /etc/yard/edge.json (default of the app: 8080)
  --relay <name>=<vid>:<pid>[:<serial>]
                         A serial relay board by USB ids (repeat for more): udev gives it the
                         stable name /dev/yard-relay-<name> (use that as the gate's relay.device).
                         `udevadm info -q property -n /dev/ttyUSB0 | grep -E 'ID_(VENDOR|MODEL)_ID|ID_SERIAL_SHORT'`
                         shows a board's ids. Given, it replaces the list; left out, the list stays.
  --source <dir>         The built checkout to install (default: the one this script is in)
  --root <dir>           Install under <dir> instead of / (a throwaway root: users and groups go into
                         <dir>/etc, services are not touched)
  --rollback             Back to the previous release (/opt/yard/previous): stop, restore the
                         database backup taken before the upgrade, switch, start. Nothing else.
  --dry-run              Say what would change, change nothing
  -h, --help             This help
EOF
}

CONFIG_FILE=""
HTTP_PORT=""
SOURCE="$(cd "$HERE/../.." && pwd)"
ROLLBACK=false
RELAYS=()
while [ $# -gt 0 ]; do
  case $1 in
  --config) CONFIG_FILE=${2:?--config needs a file}; shift 2 ;;
  --http-port) HTTP_PORT=${2:?--http-port needs a number}; shift 2 ;;
  --relay) RELAYS+=("${2:?--relay needs name=vid:pid[:serial]}"); shift 2 ;;
  --source) SOURCE=${2:?--source needs a directory}; shift 2 ;;
  --root) set_root "${2:-}"; shift 2 ;;
  --rollback) ROLLBACK=true; shift ;;
  --dry-run) DRY_RUN=true; shift ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; die "unknown argument: $1" "see the usage above" ;;
  esac
done

UNIT=yard-edge
ETC=/etc/yard
DATA=/var/lib/yard
LOGS=/var/log/yard

step "Checks"
require_root_user
require_node
if $ROLLBACK; then
  step "Roll back"
  rollback_release $UNIT edge $ETC/edge.json
  exit 0
fi
for c in useradd:passwd groupadd:passwd usermod:passwd setpriv:util-linux npm:npm; do require_command "${c%%:*}" "${c##*:}"; done
check_source "$SOURCE"
[ -z "$HTTP_PORT" ] || [[ $HTTP_PORT =~ ^[0-9]+$ && $HTTP_PORT -ge 1 && $HTTP_PORT -le 65535 ]] ||
  die "--http-port $HTTP_PORT is not a port" "a number from 1 to 65535, e.g. --http-port 8080"
if [ -n "$CONFIG_FILE" ]; then
  [ -r "$CONFIG_FILE" ] || die "cannot read $CONFIG_FILE" "copy the <site>.edge.json that npm run site:add wrote at the cloud to this box and pass its path"
  CONFIG_FILE="$(cd "$(dirname "$CONFIG_FILE")" && pwd)/$(basename "$CONFIG_FILE")"
elif [ ! -f "$(r $ETC/edge.json)" ]; then
  die "no edge config: $(r $ETC/edge.json) does not exist and --config was not given" \
    "at the cloud run npm run site:add -- <siteId> ... (docs/cloud.md), copy <siteId>.edge.json here and pass --config <siteId>.edge.json"
fi
RELAY_RULES=""
for spec in "${RELAYS[@]+"${RELAYS[@]}"}"; do
  [[ $spec =~ ^([a-z0-9][a-z0-9-]{0,31})=([0-9a-fA-F]{4}):([0-9a-fA-F]{4})(:([A-Za-z0-9._-]+))?$ ]] ||
    die "--relay $spec is not name=vid:pid[:serial]" "e.g. --relay gate1=1a86:7523 or --relay gate1=0403:6001:A10KZ3B1 (lower-case name)"
  serial=""
  if [ -n "${BASH_REMATCH[5]}" ]; then serial=", ATTRS{serial}==\"${BASH_REMATCH[5]}\""; fi
  RELAY_RULES+="SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"${BASH_REMATCH[2],,}\", ATTRS{idProduct}==\"${BASH_REMATCH[3],,}\"$serial, SYMLINK+=\"yard-relay-${BASH_REMATCH[1]}\", GROUP=\"dialout\", MODE=\"0660\""$'\n'
done
# The config as it will be written, and the files it names that came beside it: checked before
# anything changes. Such a file is installed where the config names it, which must be in $ETC/
# (docs/install.md "Install on a yard box"); a file the config names elsewhere is read by the edge where it is.
base=${CONFIG_FILE:-$(r $ETC/edge.json)}
edge_json=$(node -e '
  const [file, port] = process.argv.slice(1);
  let config;
  try { config = JSON.parse(require("fs").readFileSync(file, "utf8")); }
  catch (err) { console.error(`${file} is not JSON: ${err.message}`); process.exit(1); }
  if (config.role !== "edge" || !config.siteId) {
    console.error(`${file} is not an edge config (role "edge" and a siteId, as npm run site:add writes it)`);
    process.exit(1);
  }
  if (port) config.http = { ...config.http, port: Number(port) };
  process.stdout.write(JSON.stringify(config, null, 2) + "\n");
' "$base" "$HTTP_PORT") || die "cannot use $base" "pass the <siteId>.edge.json written by npm run site:add"
NAMED_FILES=() # setting, path; repeated
if [ -n "$CONFIG_FILE" ]; then
  while IFS= read -r -d '' setting && IFS= read -r -d '' path; do
    beside="$(dirname "$CONFIG_FILE")/$(basename "$path")"
    if [ ! -f "$beside" ]; then
      [ -f "$(r "$path")" ] ||
        warn "the config names $path ($setting) but it is not there: copy it from the cloud (site:add wrote it beside the config)"
      continue
    fi
    # The script's own files there are not the config's to replace.
    case $path in "$ETC/edge.json" | "$ETC/edge.config.cjs") allowed=false ;; *) config_file_target "$path" $ETC && allowed=true || allowed=false ;; esac
    $allowed || die "$CONFIG_FILE names \"$path\" as its $setting and $(basename "$path") came beside it, but the installer copies such files only into $ETC/. Nothing was changed." \
      "name the file in $ETC/ in the config (npm run site:add -- <siteId> ... --tls-edge-dir $ETC does), or put the file in place yourself and remove $(basename "$path") from beside the config"
    NAMED_FILES+=("$setting" "$path")
  done < <(node -e '
    const c = JSON.parse(process.argv[1]);
    const named = [["tls.certFile", c.tls?.certFile], ["tls.keyFile", c.tls?.keyFile], ["tls.caFile", c.tls?.caFile], ["mqtt.caFile", c.mqtt?.caFile]];
    for (const [setting, path] of named) if (typeof path === "string" && path) process.stdout.write(`${setting}\0${path}\0`);
  ' "$edge_json")
fi
say "   installing $SOURCE into ${ROOT:-/}$($DRY_RUN && echo ' (dry run: nothing is changed)')"

step "Service user and groups"
seed_account_files
ensure_group gpio    # Raspberry Pi OS has it; plain Debian does not (the udev rule below uses it)
ensure_group dialout # serial ports (Debian has it)
ensure_user yard "$DATA" gpio,dialout

step "Directories"
ensure_dir $ETC 0750 root yard
ensure_dir $DATA 0700 yard yard
ensure_dir $DATA/backups 0700 yard yard
ensure_dir $LOGS 0750 yard yard
ensure_dir $APP_DIR 0755 root root
ensure_dir $APP_DIR/releases 0755 root root

changes_before_app=$CHANGES # the config, release, process file and unit: a running service restarts
step "Edge config ($ETC/edge.json, readable by yard only)"
install_content $ETC/edge.json 0600 yard yard <<<"$edge_json"
# The certificate, key and CA files the config names that came beside it (checked above).
for ((i = 0; i < ${#NAMED_FILES[@]}; i += 2)); do
  setting=${NAMED_FILES[i]} path=${NAMED_FILES[i + 1]}
  case $setting in *keyFile) mode=0600 owner=yard ;; *) mode=0644 owner=root ;; esac
  install_content "$path" $mode $owner yard <"$(dirname "$CONFIG_FILE")/$(basename "$path")"
done

step "Application release"
install_release "$SOURCE"
RELEASE=$APP_DIR/releases/$RELEASE_ID
if ! $DRY_RUN; then
  YARD_CONFIG_FILE=$(r $ETC/edge.json) node "$(r $RELEASE)/deploy/lib/check-config.mjs" edge >/dev/null ||
    die "the app refuses $(r $ETC/edge.json) (above)" "fix the file (docs/configuration.md) or provision the site again, then run this again"
  ok "the app accepts $(r $ETC/edge.json)"
fi

step "pm2 process file and systemd unit ($UNIT.service)"
install_content $ETC/edge.config.cjs 0640 root yard <<EOF
$(ecosystem_header)

module.exports = {
  apps: [
    {
      name: 'yard-edge',
      script: at('$APP_DIR/current/dist/edge/main.js'),
      cwd: at('$APP_DIR/current'),
      instances: 1, // one process owns the SQLite file and the relays
      exec_mode: 'fork',
      // Sized for a Pi 4 class box (deploy/ecosystem.config.cjs explains the figures).
      node_args: ['--max-old-space-size=128', '--max-semi-space-size=2'],
      autorestart: true,
      max_memory_restart: '300M',
      kill_timeout: 10000, // time for the HTTP drain and relay de-energise on SIGTERM
      out_file: at('$LOGS/edge.log'),
      error_file: at('$LOGS/edge.error.log'),
      merge_logs: true,
      env: {
        NODE_ENV: 'production',
        YARD_ROLE: 'edge',
        YARD_CONFIG_FILE: at('$ETC/edge.json'),
        YARD_DATA_DIR: at('$DATA'),
        YARD_LOG_PRETTY: 'false',
      },
    },
  ],
};
EOF
write_pm2_unit $UNIT "Yard edge" $ETC/edge.config.cjs yard
restart=""
if [ "$CHANGES" -gt "$changes_before_app" ]; then restart=restart; fi

step "Log rotation"
write_logrotate yard-edge "$LOGS/edge.log $LOGS/edge.error.log $DATA/.pm2/pm2.log"

step "udev rules (GPIO for the gpio group, serial relay boards by USB id)"
rules=/etc/udev/rules.d/70-yard-relays.rules
if [ ${#RELAYS[@]} -eq 0 ] && [ -f "$(r $rules)" ]; then
  ok "$(r $rules) (kept: pass --relay to replace its boards)"
else
  relay_lines=$(printf '%s' "$RELAY_RULES") # without the last line break
  install_content $rules 0644 root root <<EOF
# Written by deploy/edge/install.sh (--relay name=vid:pid[:serial]); docs/install.md "Install on a yard box".
# GPIO character devices for the gpio group (Raspberry Pi OS has its own rule; plain Debian does not).
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
# Serial relay boards: a stable /dev/yard-relay-<name> whatever ttyUSB number the board gets.
${relay_lines:-# (none yet: e.g. --relay gate1=1a86:7523 for a CH340 LCUS board)}
EOF
  if live_systemd && command -v udevadm >/dev/null; then run udevadm control --reload-rules && run udevadm trigger --subsystem-match=tty; fi
fi

step "Release switch (stop, back up, migrate, start)"
switch_release $UNIT edge $ETC/edge.json
prune_releases
service_start $UNIT $restart

step "Done"
if [ "$CHANGES" -eq 0 ]; then say "Nothing to change: the edge is installed as asked."; else say "$CHANGES change(s)$($DRY_RUN && echo ' would be made')."; fi
port=$(node -p 'JSON.parse(process.argv[1]).http?.port ?? 8080' "$edge_json")
cat <<EOF
Check it:  systemctl status $UNIT   and   curl -s http://localhost:$port/readyz   ("status":"ready")
Logs:      $LOGS/edge.log (the app), $DATA/.pm2/pm2.log (pm2)
Roll back: docs/install.md, "Upgrade and roll back"
EOF
