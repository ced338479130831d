#!/usr/bin/env bash
# Installs (or upgrades) the yard cloud on a Debian host beside Mosquitto. docs/cloud.md, "Install the
# cloud". Run it from a built checkout (npm ci && npm run build) as root; running it again with the
# same arguments changes nothing.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib/install-common.sh
. "$HERE/../lib/install-common.sh"

usage() {
  cat <<'EOF'
Usage: sudo deploy/cloud/install.sh [options]

Installs the yard cloud: the service user "yard", the app in /opt/yard/releases/<release>
(/opt/yard/current), /etc/yard/cloud.json, data in /var/lib/yard (the SQLite database unless
--database-url), logs in /var/log/yard, pm2 under systemd (yard-cloud.service), log rotation,
Mosquitto's config, ACL and password file (with the cloud's own user), and an nginx TLS front
example. An upgrade (a new build) stops the cloud, backs the database up (SQLite copy or pg_dump),
migrates it, switches /opt/yard/current and starts the cloud; the previous release stays as
/opt/yard/previous.

Options:
  --database-url <url>   PostgreSQL: postgres://user:password@host:5432/db (default: SQLite in
                         /var/lib/yard). Kept in /etc/yard/cloud.json once given.
  --http-port <port>     The cloud's HTTP port on 127.0.0.1, behind nginx (default 8080)
  --mqtt-url <url>       Where the cloud reaches Mosquitto (default mqtt://127.0.0.1:1883: a
                         loopback listener that still needs the password; sites use TLS on 8883)
  --server-name <name>   The cloud's public host name, for the nginx example (default
                         cloud.example.com: edit the file before enabling it)
  --source <dir>         The built checkout to install (default: the one this script is in)
  --root <dir>           Install under <dir> instead of / (a throwaway root: users and groups go into
                         <dir>/etc, services are not touched)
  --rollback             Back to the previous release (/opt/yard/previous): stop, restore the
                         database backup taken before the upgrade, switch, start. Nothing else.
  --dry-run              Say what would change, change nothing
  -h, --help             This help
EOF
}

DATABASE_URL=""
HTTP_PORT=""
MQTT_URL=""
SERVER_NAME=""
SOURCE="$(cd "$HERE/../.." && pwd)"
ROLLBACK=false
while [ $# -gt 0 ]; do
  case $1 in
  --database-url) DATABASE_URL=${2:?--database-url needs a postgres:// URL}; shift 2 ;;
  --http-port) HTTP_PORT=${2:?--http-port needs a number}; shift 2 ;;
  --mqtt-url) MQTT_URL=${2:?--mqtt-url needs a URL}; shift 2 ;;
  --server-name) SERVER_NAME=${2:?--server-name needs a host name}; shift 2 ;;
  --source) SOURCE=${2:?--source needs a directory}; shift 2 ;;
  --root) set_root "${2:-}"; shift 2 ;;
  --rollback) ROLLBACK=true; shift ;;
  --dry-run) DRY_RUN=true; shift ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; die "unknown argument: $1" "see the usage above" ;;
  esac
done

UNIT=yard-cloud
ETC=/etc/yard
DATA=/var/lib/yard
LOGS=/var/log/yard
MOSQ_DIR=/etc/mosquitto/yard # the password file, writable by the service user for site:add

step "Checks"
require_root_user
require_node
if $ROLLBACK; then
  step "Roll back"
  rollback_release $UNIT cloud $ETC/cloud.json
  exit 0
fi
for c in useradd:passwd groupadd:passwd usermod:passwd setpriv:util-linux npm:npm mosquitto_passwd:mosquitto-clients; do
  require_command "${c%%:*}" "${c##*:}"
done
[ -n "$ROOT" ] || [ -x /usr/sbin/mosquitto ] || die "Mosquitto is not installed" "sudo apt-get install -y mosquitto mosquitto-clients"
check_source "$SOURCE"
[ -z "$HTTP_PORT" ] || [[ $HTTP_PORT =~ ^[0-9]+$ && $HTTP_PORT -ge 1 && $HTTP_PORT -le 65535 ]] ||
  die "--http-port $HTTP_PORT is not a port" "a number from 1 to 65535, e.g. --http-port 8080"
[ -z "$DATABASE_URL" ] || [[ $DATABASE_URL =~ ^postgres(ql)?:// ]] ||
  die "--database-url must be a postgres:// URL" "e.g. --database-url 'postgres://yard:secret@db.example:5432/yard', or leave it out for SQLite"
[ -z "$SERVER_NAME" ] || [[ $SERVER_NAME =~ ^[A-Za-z0-9.-]+$ ]] ||
  die "--server-name $SERVER_NAME is not a host name" "e.g. --server-name cloud.example.com"
say "   installing $SOURCE into ${ROOT:-/}$($DRY_RUN && echo ' (dry run: nothing is changed)')"

step "Service user and groups"
seed_account_files
ensure_user yard "$DATA" ""
if has_group mosquitto; then ok "group mosquitto"; else
  [ -n "$ROOT" ] || die "the group mosquitto does not exist" "sudo apt-get install -y mosquitto (it creates the user and group)"
  ensure_group mosquitto
fi

step "Directories"
ensure_dir $ETC 0750 root yard
ensure_dir $DATA 0700 yard yard
ensure_dir $DATA/backups 0700 yard yard
ensure_dir $LOGS 0750 yard yard
ensure_dir $APP_DIR 0755 root root
ensure_dir $APP_DIR/releases 0755 root root
ensure_dir /etc/mosquitto 0755 root root
# setgid: the files site:add writes here (as yard) belong to the group mosquitto reads them as.
ensure_dir $MOSQ_DIR 2750 yard mosquitto

changes_before_app=$CHANGES # the config, release, process file and unit: a running service restarts
step "Cloud config ($ETC/cloud.json, readable by yard only)"
# The cloud's MQTT password is made once and kept: it is in the config and in Mosquitto's file.
cloud_json=$(node -e '
  const fs = require("fs");
  const [file, port, mqttUrl, databaseUrl] = process.argv.slice(1);
  const config = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  config.role = "cloud";
  // Behind nginx on this host: loopback only, and the client address from the one proxy.
  config.http = { host: "127.0.0.1", trustProxy: 1, ...config.http, ...(port ? { port: Number(port) } : {}) };
  config.http.port ??= 8080;
  config.mqtt = {
    url: "mqtt://127.0.0.1:1883",
    username: "cloud",
    password: require("crypto").randomBytes(24).toString("base64url"),
    ...config.mqtt,
    ...(mqttUrl ? { url: mqttUrl } : {}),
  };
  if (databaseUrl) config.database = { ...config.database, url: databaseUrl };
  process.stdout.write(JSON.stringify(config, null, 2) + "\n");
' "$(r $ETC/cloud.json)" "$HTTP_PORT" "$MQTT_URL" "$DATABASE_URL") ||
  die "cannot read $(r $ETC/cloud.json)" "fix its JSON (docs/configuration.md) or move it aside to start afresh"
install_content $ETC/cloud.json 0600 yard yard <<<"$cloud_json"
field() { node -p "JSON.parse(process.argv[1]).$1 ?? ''" "$cloud_json"; }
cloud_mqtt_url=$(field mqtt.url)
cloud_mqtt_user=$(field mqtt.username)

step "Application release"
install_release "$SOURCE"
RELEASE=$APP_DIR/releases/$RELEASE_ID
if ! $DRY_RUN; then
  YARD_CONFIG_FILE=$(r $ETC/cloud.json) node "$(r $RELEASE)/deploy/lib/check-config.mjs" cloud >/dev/null ||
    die "the app refuses $(r $ETC/cloud.json) (above)" "fix the file (docs/configuration.md), then run this again"
  ok "the app accepts $(r $ETC/cloud.json)"
fi

step "Mosquitto (config, ACL, password file with the cloud's user)"
mosquitto_changes=$CHANGES
loopback=false
[[ $cloud_mqtt_url =~ ^mqtt://(127\.0\.0\.1|localhost):1883/?$ ]] && loopback=true
install_content /etc/mosquitto/mosquitto.conf 0644 root root < <(
  printf '# Written by deploy/cloud/install.sh from deploy/mosquitto/mosquitto.conf (see its README).\n'
  sed -e "s#^password_file .*#password_file $MOSQ_DIR/passwd#" \
    -e "$($loopback && echo 's/^#listener 1883 127.0.0.1$/listener 1883 127.0.0.1/' || echo 's/^$//')" \
    "$SOURCE/deploy/mosquitto/mosquitto.conf"
)
acl=$(sed "s/^user cloud$/user $cloud_mqtt_user/" "$SOURCE/deploy/mosquitto/acl")
install_content /etc/mosquitto/acl 0644 root root <<<"$acl"
if $DRY_RUN && [ ! -f "$(r $RELEASE)/.complete" ]; then
  changed "$(r $MOSQ_DIR/passwd) (the cloud's user)"
else
  passwd=$(field mqtt.password | node "$(r $RELEASE)/deploy/lib/mosquitto-user.mjs" "$(r $MOSQ_DIR/passwd)" "$cloud_mqtt_user")
  install_content $MOSQ_DIR/passwd 0640 yard mosquitto <<<"$passwd"
fi
mosquitto_changes=$((CHANGES - mosquitto_changes))
for f in server.crt server.key ca.crt; do
  [ -f "$(r /etc/mosquitto/certs/$f)" ] ||
    warn "no /etc/mosquitto/certs/$f yet: Mosquitto's TLS listener for the sites will not start without it (deploy/mosquitto/README.md, \"Certificates\")"
done

step "nginx TLS front (example; not enabled)"
name=${SERVER_NAME:-cloud.example.com}
port=$(field http.port)
install_content /etc/nginx/sites-available/yard-cloud 0644 root root < <(
  printf '# Written by deploy/cloud/install.sh from deploy/nginx/yard-cloud.conf: one cloud node on this host.\n'
  awk -v port="$port" '
    /^ *server 10\.0\.0\.[0-9]+:8080 / { if (!done) { print "    server 127.0.0.1:" port " max_fails=2 fail_timeout=10s;"; done = 1 } next }
    { print }
  ' "$SOURCE/deploy/nginx/yard-cloud.conf" | sed "s/cloud\.example\.com/$name/g"
)
[ -n "$SERVER_NAME" ] || warn "no --server-name: edit server_name and the certificate paths in /etc/nginx/sites-available/yard-cloud"

step "pm2 process file and systemd unit ($UNIT.service)"
install_content $ETC/cloud.config.cjs 0640 root yard <<EOF
$(ecosystem_header)

module.exports = {
  apps: [
    {
      name: 'yard-cloud',
      script: at('$APP_DIR/current/dist/cloud/main.js'),
      cwd: at('$APP_DIR/current'),
      instances: 1, // a SQLite cloud is one process; more nodes: docs/cloud.md "The cloud in production"
      exec_mode: 'fork',
      autorestart: true,
      max_memory_restart: '1G',
      kill_timeout: 15000, // HTTP drain, the sync links' last acks, SQLite checkpoint
      out_file: at('$LOGS/cloud.log'),
      error_file: at('$LOGS/cloud.error.log'),
      merge_logs: true,
      env: {
        NODE_ENV: 'production',
        YARD_ROLE: 'cloud',
        YARD_CONFIG_FILE: at('$ETC/cloud.json'),
        YARD_DATA_DIR: at('$DATA'),
        YARD_LOG_PRETTY: 'false',
      },
    },
  ],
};
EOF
write_pm2_unit $UNIT "Yard cloud" $ETC/cloud.config.cjs yard
restart=""
if [ "$CHANGES" -gt "$changes_before_app" ]; then restart=restart; fi

step "Log rotation"
write_logrotate yard-cloud "$LOGS/cloud.log $LOGS/cloud.error.log $DATA/.pm2/pm2.log"

step "Release switch (stop, back up, migrate, start)"
switch_release $UNIT cloud $ETC/cloud.json
prune_releases
if [ "$mosquitto_changes" -gt 0 ]; then
  if live_systemd; then
    changed "restart mosquitto (its files changed)"
    run systemctl restart mosquitto || warn "mosquitto did not start: journalctl -u mosquitto -n 50 (certificates?)"
  else
    say "   (no systemd here or --root: restart Mosquitto yourself: systemctl restart mosquitto)"
  fi
fi
service_start $UNIT $restart

step "Done"
if [ "$CHANGES" -eq 0 ]; then say "Nothing to change: the cloud is installed as asked."; else say "$CHANGES change(s)$($DRY_RUN && echo ' would be made')."; fi
cat <<EOF
Check it:  systemctl status $UNIT mosquitto   and   curl -s http://127.0.0.1:$port/readyz   ("status":"ready")
First start: the admin's one-time password is in $LOGS/cloud.log (grep "one-time password").
Sites:     docs/cloud.md, "Provision a site"
Logs:      $LOGS/cloud.log (the app), $DATA/.pm2/pm2.log (pm2)
EOF
