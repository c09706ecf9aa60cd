#!/usr/bin/env bash
# One run of the Tomcat workload of bench/run.sh: Tomcat 10 (Debian package
# tomcat10-common) serving testdata/java/server's BlockingServlet (monitors,
# waits, sleeps, ReentrantLock, a read-write lock, a Condition, a future, a
# latch, a queue, parkNanos: every way a request thread blocks) under wrk on
# 127.0.0.1.
#
#   JDK=/path/to/jdk CLASSES=dir JVM_ARGS="..." SECS=5 WARMUP=2 bench/tomcat.sh WORKDIR
#
# CLASSES holds the compiled servlet (orca/test/BlockingServlet.class). Prints,
# like the Java workloads: OPS (requests in the measured window), SECONDS,
# OPS_PER_S, CPU (the JVM's CPU seconds in the window, from /proc). wrk runs
# on the same machine (1 thread, 16 connections): its CPU is not counted.
# Tomcat's JVM runs in WORKDIR with -XX:ErrorFile=WORKDIR/hs_err_pid%p.log
# (before JVM_ARGS, which may name another file): its crash, an hs_err file or
# a core there, fails the run (bench/crash.sh). With TOTAL_CPU=1 the JVM is then
# stopped and CPU_TOTAL printed too: its CPU seconds over its whole life, the
# exit included (an agent's last write; bench/cpu_of.py).
set -euo pipefail
source "$(dirname "$0")/crash.sh"
mkdir -p "$1"
work=$(cd "$1" && pwd)
: "${JDK:?}" "${CLASSES:?}" "${SECS:=5}" "${WARMUP:=2}" "${JVM_ARGS:=}"
home=/usr/share/tomcat10
[ -x "$home/bin/catalina.sh" ] || { echo "tomcat.sh: no $home/bin/catalina.sh (apt-get install tomcat10-common)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "tomcat.sh: no wrk (apt-get install wrk)" >&2; exit 1; }

base=$work/base
rm -rf "$base"
mkdir -p "$base"/{conf,logs,temp,work} "$base/webapps/ROOT/WEB-INF"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$base/conf/server.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector port="$port" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000"/>
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false"/>
    </Engine>
  </Service>
</Server>
EOF
cat >"$base/webapps/ROOT/WEB-INF/web.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0" metadata-complete="true">
  <servlet><servlet-name>block</servlet-name><servlet-class>orca.test.BlockingServlet</servlet-class><load-on-startup>1</load-on-startup></servlet>
  <servlet-mapping><servlet-name>block</servlet-name><url-pattern>/block</url-pattern></servlet-mapping>
</web-app>
EOF
cp -r "$CLASSES" "$base/webapps/ROOT/WEB-INF/classes"

url=http://127.0.0.1:$port/block
launch=()
[ -n "${TOTAL_CPU:-}" ] && launch=("$(cd "$(dirname "$0")" && pwd)/cpu_of.py" "$work/cpu_total")
(cd "$work" && JAVA_HOME=$JDK CATALINA_HOME=$home CATALINA_BASE=$base CATALINA_PID= \
  JAVA_OPTS="-XX:ErrorFile=$work/hs_err_pid%p.log $JVM_ARGS" exec "${launch[@]}" "$home/bin/catalina.sh" run) >"$work/tomcat.log" 2>&1 &
pid=$!
jvm=$pid # catalina.sh run execs java; under cpu_of.py, its child
stop() { kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
finish() {
  local rc=$?
  stop
  crash_check "tomcat-${work##*/}" "$work" || rc=1
  exit "$rc"
}
trap finish EXIT
for ((i = 0; i < 120; i++)); do
  curl -fs -o /dev/null "$url" && break
  kill -0 "$pid" 2>/dev/null || { echo "tomcat.sh: Tomcat exited; log: $work/tomcat.log" >&2; tail -n 20 "$work/tomcat.log" >&2; exit 1; }
  sleep 0.5
done
curl -fs -o /dev/null "$url" || { echo "tomcat.sh: no answer from $url; log: $work/tomcat.log" >&2; exit 1; }
[ -n "${TOTAL_CPU:-}" ] && jvm=$(pgrep -P "$pid" | head -n1)

cpu() { awk '{ print $14 + $15 }' "/proc/$jvm/stat"; }
wrk -t1 -c16 -d"${WARMUP}s" "$url" >/dev/null
c0=$(cpu)
out=$(wrk -t1 -c16 -d"${SECS}s" "$url")
c1=$(cpu)
reqs=$(sed -n 's/^ *\([0-9]*\) requests in \([0-9.]*\)\(m\?s\).*/\1/p' <<<"$out")
secs=$(sed -n 's/^ *[0-9]* requests in \([0-9.]*\)\(m\?s\).*/\1 \2/p' <<<"$out" | awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }')
[ -n "$reqs" ] && [ -n "$secs" ] || { echo "tomcat.sh: cannot read wrk's output:" >&2; echo "$out" >&2; exit 1; }
hz=$(getconf CLK_TCK)
echo "OPS $reqs"
echo "SECONDS $secs"
awk -v r="$reqs" -v s="$secs" 'BEGIN { printf "OPS_PER_S %.0f\n", r / s }'
awk -v a="$c0" -v b="$c1" -v hz="$hz" 'BEGIN { printf "CPU %.3f\n", (b - a) / hz }'
if [ -n "${TOTAL_CPU:-}" ]; then
  stop
  awk '{ printf "CPU_TOTAL %.3f\n", $1 + $2 }' "$work/cpu_total"
fi
