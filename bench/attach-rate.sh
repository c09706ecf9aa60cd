#!/usr/bin/env bash
# bench/attach-rate.sh: what the first attach costs a loaded server, per 100 ms (issue 31, item 5).
#
#   bench/attach-rate.sh tomcat|activemq 17|25 [ROUNDS]      (under flock /work/notes/bench.lock)
#
# Each round runs the server twice, in the order none, attach: started without orca, loaded
# (Tomcat: bench/java/HttpLoad, 16 keep-alive connections on testdata/java/server's servlet;
# ActiveMQ: bench/java/JmsLoad, 6 producers and 6 consumers) for WARM+AFTER s; WARM (15) s into
# the load, `orca record --pid PID --duration REC(2)s` (attach) or nothing (none). The load
# client counts the completed requests (received messages) in each 100 ms. For each run the
# table gives the rate before (the mean count per 100 ms over the 3 s before the attach) and the
# share of it lost in the first second after the attach, in the next second, in seconds 2-4 and
# 4-AFTER (the recording runs the first REC s); the "none" run of the same round is the same
# server at the same time without the attach (its trend, the machine's noise). Every run's
# counts are in $OUT/SERVER.JDK.ROUND.MODE/rate, the attach's time (epoch ms) in attach_ms
# beside them; $OUT/rate.SERVER.JDK.ROUND.MODE holds the counts from 2 s before to 4 s after.
#   MODES="none again"  the measured attach is the JVM's second (the first, 1 s long, 8 s before
#                       it): what an attach costs without the rewrite of Thread and Semaphore
#   JVM_EXTRA=...       more options for the server's JVM, e.g.
#                       -agentpath:$(bin/orca agent-path)=standby=yes (docs/attach.md)
#   XLOG=1              -Xlog:redefine+class+nmethod=debug (what the rewrite deoptimised),
#                       jit+compilation=debug (every "made not entrant") and safepoint, in $OUT
#   ORCA=PATH           the orca binary (default bin/orca)
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
srv=$1 jn=$2 rounds=${3:-3}
case $jn in 17) JDK=/usr/lib/jvm/java-17-openjdk-amd64;; 25) JDK=/usr/lib/jvm/temurin-25-jdk-amd64;; *) echo "JDK 17 or 25" >&2; exit 2;; esac
WARM=${WARM:-15} AFTER=${AFTER:-8} REC=${REC:-2}
ORCA=${ORCA:-$repo/bin/orca}
OUT=${OUT:-/tmp/attach-rate}
mkdir -p "$OUT"
CLS=$OUT/cls
AMQ=/usr/share/activemq/lib
AMQCP=$AMQ/activemq-client.jar:$AMQ/geronimo-jms_1.1_spec.jar:$AMQ/hawtbuf.jar:$AMQ/slf4j-api.jar:$AMQ/geronimo-j2ee-management-1.1-spec.jar
if [ ! -e "$CLS/HttpLoad.class" ] || [ "$repo/bench/java/JmsLoad.java" -nt "$CLS/JmsLoad.class" ]; then
  mkdir -p "$CLS/servlet"
  /usr/lib/jvm/java-17-openjdk-amd64/bin/javac --release 17 -d "$CLS" -cp "$AMQCP" \
    "$repo/bench/java/HttpLoad.java" || exit 1
  [ -r $AMQ/activemq-client.jar ] && { /usr/lib/jvm/java-17-openjdk-amd64/bin/javac --release 17 -d "$CLS" -cp "$AMQCP" "$repo/bench/java/JmsLoad.java" || exit 1; }
  /usr/lib/jvm/java-17-openjdk-amd64/bin/javac --release 17 -d "$CLS/servlet" -cp /usr/share/java/tomcat10-servlet-api.jar \
    "$repo"/testdata/java/server/orca/test/*.java || exit 1
fi
LOADSECS=$((WARM + AFTER))

# run ROUND MODE: one server, loaded, attached to (MODE=attach) or not (none), WARM s into the
# load; prints "before lost0 lost1 lost2-4 lost4-AFTER" (counts per 100 ms, shares of before).
run() {
  local round=$1 mode=$2 W=$OUT/$srv.$jn.$1.$2 jpid
  rm -rf "$W"; mkdir -p "$W"
  local xl=
  [ "${XLOG:-0}" = 1 ] && xl="-Xlog:redefine+class+nmethod=debug:file=$W/redefine.log -Xlog:jit+compilation=debug:file=$W/jit.log -Xlog:safepoint:file=$W/safepoint.log:uptime"
  case $srv in
  tomcat)
    local base=$W/base
    mkdir -p "$base"/{conf,logs,temp,work} "$base/webapps/ROOT/WEB-INF"
    cat >"$base/conf/server.xml" <<X
<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN"><Service name="Catalina">
<Connector port="19080" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000"/>
<Engine name="Catalina" defaultHost="localhost"><Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false"/></Engine>
</Service></Server>
X
    cat >"$base/webapps/ROOT/WEB-INF/web.xml" <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0" metadata-complete="true">
  <servlet><servlet-name>block</servlet-name><servlet-class>orca.test.BlockingServlet</servlet-class><load-on-startup>1</load-on-startup></servlet>
  <servlet-mapping><servlet-name>block</servlet-name><url-pattern>/block</url-pattern></servlet-mapping>
</web-app>
X
    cp -r "$CLS/servlet" "$base/webapps/ROOT/WEB-INF/classes"
    (cd "$W" && JAVA_HOME=$JDK CATALINA_HOME=/usr/share/tomcat10 CATALINA_BASE=$base CATALINA_PID= JAVA_OPTS="$xl ${JVM_EXTRA:-}" \
      exec /usr/share/tomcat10/bin/catalina.sh run) >"$W/server.log" 2>&1 &
    jpid=$!
    ready() { curl -fs -o /dev/null http://127.0.0.1:19080/block; }
    load() { "$JDK/bin/java" -cp "$CLS" HttpLoad http://127.0.0.1:19080/block 16 "$LOADSECS" "$W/rate"; } ;;
  activemq)
    mkdir -p "$W/conf" "$W/data"
    sed 's#tcp://127.0.0.1:61616#tcp://127.0.0.1:19616#' /etc/activemq/instances-available/main/activemq.xml >"$W/conf/activemq.xml"
    cp /etc/activemq/instances-available/main/log4j2.properties "$W/conf/"
    (cd "$W" && exec "$JDK/bin/java" $xl ${JVM_EXTRA:-} -Xms512M -Xmx512M -Dactivemq.home=/usr/share/activemq -Dactivemq.base="$W" \
      -Dactivemq.conf="$W/conf" -Dactivemq.data="$W/data" -Dlog4j2.configurationFile="$W/conf/log4j2.properties" \
      -jar /usr/share/activemq/bin/activemq.jar start "xbean:file:$W/conf/activemq.xml") >"$W/server.log" 2>&1 &
    jpid=$!
    ready() { (exec 3<>/dev/tcp/127.0.0.1/19616) 2>/dev/null; }
    load() { "$JDK/bin/java" -cp "$CLS:$AMQCP:/usr/share/java/slf4j-nop.jar" JmsLoad tcp://127.0.0.1:19616 6 6 "$LOADSECS" "$W/rate"; } ;;
  esac
  local i
  for i in $(seq 240); do ready && break; sleep 0.25; done
  load >"$W/load.log" 2>&1 &
  local lpid=$!
  if [ "$mode" = again ]; then
    # The first attach, 1 s long, WARM-8 s into the load: the one measured is the second.
    sleep $((WARM - 8))
    "$ORCA" record --pid "$jpid" --duration 1s -o "$W/first" >"$W/orca-first.log" 2>&1
    sleep 7
  else
    sleep "$WARM"
  fi
  date +%s%3N >"$W/attach_ms"
  local opid=
  if [ "$mode" != none ]; then
    "$ORCA" record --pid "$jpid" --duration "${REC}s" -o "$W/rec" >"$W/orca.log" 2>&1 &
    opid=$!
  fi
  wait "$lpid"
  [ -z "$opid" ] || wait "$opid"
  kill -TERM "$jpid" 2>/dev/null; wait "$jpid" 2>/dev/null
  awk -v at="$(cat "$W/attach_ms")" -v after="$AFTER" -v series="$OUT/rate.$srv.$jn.$round.$mode" '
    NR == 1 { t0 = $1; next }
    { c[NR - 2] = $1 }
    END {
      a = int((at - t0) / 100)   # the bucket holding the attach
      for (i = a - 30; i < a; i++) { b += c[i]; nb++ }
      b /= nb
      for (i = a; i < a + 10; i++) l0 += c[i]
      for (i = a + 10; i < a + 20; i++) l1 += c[i]
      for (i = a + 20; i < a + 40; i++) l2 += c[i]
      for (i = a + 40; i < a + 10 * after - 5; i++) { l3 += c[i]; n3++ }
      printf "%8.1f %6.1f%% %6.1f%% %6.1f%% %6.1f%%\n", b, 100 * (1 - l0 / (10 * b)), 100 * (1 - l1 / (10 * b)), 100 * (1 - l2 / (20 * b)), 100 * (1 - l3 / (n3 * b))
      for (i = a - 20; i < a + 40; i++) printf "%d %d\n", (i - a) * 100, c[i] > series
    }' "$W/rate"
  if [ "$mode" != none ] && ! grep -q "complete=true" "$W/rec.info" 2>/dev/null; then
    echo "attach-rate.sh: $W: the recording is not complete:" >&2; cat "$W/orca.log" >&2
  fi
}

echo "# $srv JDK $jn, $(git -C "$repo" rev-parse --short HEAD), WARM=$WARM AFTER=$AFTER REC=$REC, $(date -u +%FT%TZ)"
printf "%-5s %-6s %8s %7s %7s %7s %7s\n" round mode "before" "0-1s" "1-2s" "2-4s" "4-${AFTER}s"
for r in $(seq 1 "$rounds"); do
  for m in ${MODES:-none attach}; do
    printf "%-5s %-6s %s\n" "$r" "$m" "$(run "$r" "$m")"
  done
done
