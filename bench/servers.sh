#!/usr/bin/env bash
# Issue 20's "How to check" on Debian-packaged servers: records SERVER (hsqldb, activemq, jetty,
# lucene, derby, tomcat) with bin/orca on JDK 17 or 25, loads it for LOADSECS (18) s with a client of
# bench/java (HsqlLoad: 12 JDBC threads; JmsLoad: 6 producers + 6 consumers; LuceneLoad: 4
# indexers + 4 searchers in the recorded JVM; DerbyLoad: 8 transactions on 20 rows of embedded
# Derby, in the recorded JVM; Tomcat: wrk on testdata/java/server's servlet; jetty: the same on
# Jetty 9.4, Debian's jetty9, installed by hand), or
# waits 10 s (idle), stops the JVM with kill -TERM and writes report.txt and report.json.
#
#   bench/servers.sh SERVER 17|25 load|idle TAG [EXTRA_JVM_ARGS]    -> $OUT/TAG (OUT=/tmp/h20/runs)
#   ORCA_FLAGS="--format compact" bench/servers.sh …   orca record flags (before --)
#   WARMSECS=N bench/servers.sh … load …   N s of load before the measured window
#   ORCA_OFF=1 bench/servers.sh …   the server without orca (e.g. JFR alone in EXTRA_JVM_ARGS)
#   NICE=-10 bench/servers.sh …     nice value for the server and the load client [0]
#   NOREPORT=1 bench/servers.sh …   no orca report afterwards
#   MVCC=1 bench/servers.sh hsqldb …  HsqlLoad sets SET DATABASE TRANSACTION CONTROL MVCC first
#   VIRTUAL=1 bench/servers.sh tomcat 25 …  the connector runs requests on virtual threads (useVirtualThreads)
# $W/result.txt (W=$OUT/TAG): one line, "sent S received R loadsecs L jvm_cpu_s C orca_cpu_s O
# window_s T rec_bytes B orca_minflt F orca_hwm_kb H", C the server JVM's CPU (user + system, /proc) over the load window of
# T s, O the orca record process's own (--otlp's pushes: bench/otlp-push.sh), B the bytes the
# recording grew by in it, F orca's minor page faults in it, H orca record's peak RSS (VmHWM) at
# its end; bench/amq-jfr.sh reads it.
# $W/threads.txt: each JVM thread's CPU seconds since its start, at the end of the load window.
# $W/window.txt: the load window's start and end, Unix seconds (bench/jfrcmp's -from and -to).
#
# Ports 19001 (HSQLDB), 19616 (ActiveMQ), 19080 (Tomcat), 19090 (Jetty), on 127.0.0.1 only.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
srv=$1 jn=$2 mode=$3 tag=$4 extra=${5:-}
case $jn in 17) JDK=/usr/lib/jvm/java-17-openjdk-amd64;; 25) JDK=/usr/lib/jvm/temurin-25-jdk-amd64;; esac
ORCA=${ORCA_BIN:-$repo/bin/orca}
W=${OUT:-/tmp/h20/runs}/$tag; rm -rf "$W"; mkdir -p "$W"; cd "$W"
P=$W/rec
LOADSECS=${LOADSECS:-18}
CLS=${OUT:-/tmp/h20/runs}/cls
AMQCP0=/usr/share/activemq/lib/activemq-client.jar:/usr/share/activemq/lib/geronimo-jms_1.1_spec.jar:/usr/share/activemq/lib/hawtbuf.jar:/usr/share/activemq/lib/slf4j-api.jar:/usr/share/activemq/lib/geronimo-j2ee-management-1.1-spec.jar
# LuceneLoad only where liblucene8-java is installed (the other servers do not need it).
LUCENE=/usr/share/java/lucene-core-8.7.0.jar
DERBY=/usr/share/java/derby.jar
# JmsLoad only where activemq is installed: a server's client is compiled with the others, and one
# missing jar stopped them all (hsqldb on a machine without activemq).
AMQJAR=/usr/share/activemq/lib/activemq-client.jar
if [ ! -e $CLS/HsqlLoad.class ] || { [ -e $AMQJAR ] && [ ! -e $CLS/JmsLoad.class ]; } || { [ -e $LUCENE ] && [ ! -e $CLS/LuceneLoad.class ]; } || { [ -e $DERBY ] && [ ! -e $CLS/DerbyLoad.class ]; }; then
  mkdir -p $CLS
  srcs="$repo/bench/java/HsqlLoad.java"
  [ -e $AMQJAR ] && srcs="$srcs $repo/bench/java/JmsLoad.java"
  [ "$srv" = activemq ] && [ ! -e $AMQJAR ] && { echo "bench/servers.sh: activemq needs $AMQJAR (apt-get install activemq)" >&2; exit 1; }
  [ -e $LUCENE ] && srcs="$srcs $repo/bench/java/LuceneLoad.java"
  [ -e $DERBY ] && srcs="$srcs $repo/bench/java/DerbyLoad.java"
  [ "$srv" = lucene ] && [ ! -e $LUCENE ] && { echo "bench/servers.sh: lucene needs $LUCENE (apt-get install liblucene8-java)" >&2; exit 1; }
  /usr/lib/jvm/java-17-openjdk-amd64/bin/javac --release 17 -d $CLS -cp $AMQCP0:$LUCENE:$DERBY $srcs || exit 1
fi
# Tomcat's servlet (testdata/java/server) only for tomcat, against Tomcat's own servlet API: the
# other servers need neither (an ActiveMQ run on a machine without libtomcat10-java failed here).
SERVLETAPI=/usr/share/java/tomcat10-servlet-api.jar
if [ "$srv" = tomcat ]; then
  [ -e $SERVLETAPI ] && [ -e /usr/share/tomcat10/bin/catalina.sh ] || { echo "bench/servers.sh: tomcat needs $SERVLETAPI and /usr/share/tomcat10/bin/catalina.sh (apt-get install tomcat10-common libtomcat10-java)" >&2; exit 1; }
fi
if [ "$srv" = tomcat ] && [ ! -e $CLS/servlet/orca/test/BlockingServlet.class ]; then
  mkdir -p $CLS/servlet
  /usr/lib/jvm/java-17-openjdk-amd64/bin/javac --release 17 -d $CLS/servlet -cp $SERVLETAPI \
    $repo/testdata/java/server/orca/test/*.java || exit 1
fi
AMQCP=/usr/share/activemq/lib/activemq-client.jar:/usr/share/activemq/lib/geronimo-jms_1.1_spec.jar:/usr/share/activemq/lib/hawtbuf.jar:/usr/share/activemq/lib/slf4j-api.jar:/usr/share/activemq/lib/geronimo-j2ee-management-1.1-spec.jar
EF="-XX:ErrorFile=$W/hs_err_pid%p.log"
# NICE: this script and everything it starts (server, orca, load client) at that nice value
[ "${NICE:-0}" = 0 ] || renice -n "$NICE" -p $$ >/dev/null
[ "${ORCA_OFF:-0}" = 1 ] && ORCA=
# orca record -o P … -- CMD, or CMD alone under ORCA_OFF=1 (the record and -o P words dropped);
# exec'ed, so that the background job ($!) is orca record (the JVM its child) or the JVM itself
rec() { if [ "${ORCA_OFF:-0}" = 1 ]; then shift 3; while [ "$1" != -- ]; do shift; done; shift; fi; exec $ORCA "$@"; }
case $srv in
hsqldb)
  rec record -o $P ${ORCA_FLAGS:-} -- $JDK/bin/java $EF $extra -cp /usr/share/java/hsqldb.jar org.hsqldb.server.Server --database.0 mem:test --dbname.0 test --address 127.0.0.1 --port 19001 --silent true >server.log 2>&1 &
  ready() { (exec 3<>/dev/tcp/127.0.0.1/19001) 2>/dev/null; }
  load() { $JDK/bin/java -cp $CLS:/usr/share/java/hsqldb.jar -Dport=19001 ${MVCC:+-Dmvcc=1} HsqlLoad 12 $LOADSECS; } ;;
activemq)
  mkdir -p conf data; sed 's#tcp://127.0.0.1:61616#tcp://127.0.0.1:19616#' /etc/activemq/instances-available/main/activemq.xml >conf/activemq.xml
  cp /etc/activemq/instances-available/main/log4j2.properties conf/
  rec record -o $P ${ORCA_FLAGS:-} -- $JDK/bin/java $EF $extra -Xms512M -Xmx512M -Dactivemq.home=/usr/share/activemq -Dactivemq.base=$W -Dactivemq.conf=$W/conf -Dactivemq.data=$W/data -Dlog4j2.configurationFile=$W/conf/log4j2.properties -jar /usr/share/activemq/bin/activemq.jar start xbean:file:$W/conf/activemq.xml >server.log 2>&1 &
  ready() { (exec 3<>/dev/tcp/127.0.0.1/19616) 2>/dev/null; }
  load() { $JDK/bin/java -cp $CLS:$AMQCP:/usr/share/java/slf4j-nop.jar JmsLoad tcp://127.0.0.1:19616 6 6 $LOADSECS; } ;;
derby)
  # embedded: the load runs in the recorded JVM (bench/java/DerbyLoad.java), until the TERM
  rec record -o $P ${ORCA_FLAGS:-} -- $JDK/bin/java $EF $extra -Dderby.locks.deadlockTimeout=1 -Dderby.locks.waitTimeout=3 \
    -Dderby.stream.error.file=$W/derby.log -cp $CLS:/usr/share/java/derby.jar DerbyLoad 8 20 >server.log 2>&1 &
  ready() { [ -e $P.info ]; }
  load() { sleep $LOADSECS; } ;;
lucene)
  if [ $mode = idle ]; then lm=idle; else lm=run; fi
  rec record -o $P ${ORCA_FLAGS:-} -- $JDK/bin/java $EF $extra -cp $CLS:/usr/share/java/lucene-core-8.7.0.jar LuceneLoad $W/index 4 4 $lm >server.log 2>&1 &
  ready() { [ -e $P.info ]; }
  load() { sleep $LOADSECS; } ;;
tomcat)
  base=$W/base; mkdir -p $base/{conf,logs,temp,work} $base/webapps/ROOT/WEB-INF
  vt=; [ -n "${VIRTUAL:-}" ] && vt=' useVirtualThreads="true"'
  cat >$base/conf/server.xml <<X
<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN"><Service name="Catalina">
<Connector port="19080" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000"$vt/>
<Engine name="Catalina" defaultHost="localhost"><Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false"/></Engine>
</Service></Server>
X
  cat >$base/webapps/ROOT/WEB-INF/web.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0" metadata-complete="true">
  <servlet><servlet-name>block</servlet-name><servlet-class>orca.test.BlockingServlet</servlet-class><load-on-startup>1</load-on-startup></servlet>
  <servlet-mapping><servlet-name>block</servlet-name><url-pattern>/block</url-pattern></servlet-mapping>
</web-app>
X
  cp -r $CLS/servlet $base/webapps/ROOT/WEB-INF/classes
  JAVA_HOME=$JDK CATALINA_HOME=/usr/share/tomcat10 CATALINA_BASE=$base CATALINA_PID= JAVA_OPTS="$EF $extra" \
    rec record -o $P ${ORCA_FLAGS:-} -- /usr/share/tomcat10/bin/catalina.sh run >server.log 2>&1 &
  ready() { curl -fs -o /dev/null http://127.0.0.1:19080/block; }
  load() { wrk -t2 -c16 -d${LOADSECS}s http://127.0.0.1:19080/block; } ;;
jetty)
  # Jetty 9.4 (Debian package jetty9, not installed by make: apt-get install jetty9): the same
  # servlet, its jakarta.servlet imports made javax.servlet, at /block of a JETTY_BASE of its own
  [ -e /usr/share/jetty9/start.jar ] || { echo "bench/servers.sh: jetty needs /usr/share/jetty9 (apt-get install jetty9)" >&2; exit 1; }
  base=$W/base; mkdir -p $base/webapps/ROOT/WEB-INF/classes $base/src/orca/test $base/logs
  printf -- '--module=deploy,http\njetty.http.host=127.0.0.1\njetty.http.port=19090\n' >$base/start.ini
  sed 's/jakarta\.servlet/javax.servlet/g' $repo/testdata/java/server/orca/test/BlockingServlet.java >$base/src/orca/test/BlockingServlet.java
  /usr/lib/jvm/java-17-openjdk-amd64/bin/javac --release 11 -d $base/webapps/ROOT/WEB-INF/classes -cp /usr/share/java/servlet-api-4.0.1.jar \
    $base/src/orca/test/BlockingServlet.java || exit 1
  cat >$base/webapps/ROOT/WEB-INF/web.xml <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="http://xmlns.jcp.org/xml/ns/javaee" version="4.0" metadata-complete="true">
  <servlet><servlet-name>block</servlet-name><servlet-class>orca.test.BlockingServlet</servlet-class><load-on-startup>1</load-on-startup></servlet>
  <servlet-mapping><servlet-name>block</servlet-name><url-pattern>/block</url-pattern></servlet-mapping>
</web-app>
X
  rec record -o $P ${ORCA_FLAGS:-} -- $JDK/bin/java $EF $extra -Djetty.home=/usr/share/jetty9 -Djetty.base=$base -jar /usr/share/jetty9/start.jar \
    jetty.home=/usr/share/jetty9 jetty.base=$base >server.log 2>&1 &
  ready() { curl -fs -o /dev/null http://127.0.0.1:19090/block; }
  load() { wrk -t2 -c16 -d${LOADSECS}s http://127.0.0.1:19090/block; } ;;
esac
opid=$!
for i in $(seq 240); do ready && break; sleep 0.25; done
# the JVM: orca record's child, or, with ORCA_OFF=1, the background job itself (exec java;
# catalina.sh run also ends in exec java)
if [ "${ORCA_OFF:-0}" = 1 ]; then jpid=$opid; else jpid=$(pgrep -P $opid | head -1); fi
jcpu() { awk '{ print ($14 + $15) / '"$(getconf CLK_TCK)"' }' /proc/$jpid/stat; }
# orca's own CPU (the orca record process, not the JVM: e.g. --otlp's pushes); 0 without orca
ocpu() { if [ "${ORCA_OFF:-0}" = 1 ]; then echo 0; else awk '{ print ($14 + $15) / '"$(getconf CLK_TCK)"' }' /proc/$opid/stat; fi; }
# orca's minor page faults (its heap touched afresh: memory new or given back to the system)
oflt() { if [ "${ORCA_OFF:-0}" = 1 ]; then echo 0; else awk '{ print $10 }' /proc/$opid/stat; fi; }
echo "orca $opid jvm $jpid"; ps -o pid,args -p $jpid | cut -c1-150
# WARMSECS=N: N s of load before the measured window (orca's first pushes, which resolve every
# stack and grow its heap, fall before it: an always-on recording's steady state)
if [ $mode = load ] && [ "${WARMSECS:-0}" != 0 ]; then LOADSECS=$WARMSECS load >warm.log 2>&1; fi
t0=$(date +%s.%N)
# the recording's bytes so far (its chunk files, none deleted within a bounded recording's age)
rbytes() { cat $P.orca* 2>/dev/null | wc -c; }
c0=$(jcpu) o0=$(ocpu) f0=$(oflt) b0=$(rbytes)
if [ $mode = load ]; then load >load.log 2>&1; tail -3 load.log; else sleep 10; fi
c1=$(jcpu) o1=$(ocpu) f1=$(oflt) tw=$(date +%s.%N) b1=$(rbytes)
# orca record's peak RSS so far (kB; 0 without orca)
hwm=0; [ "${ORCA_OFF:-0}" = 1 ] || hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$opid/status)
# the JVM's threads' CPU (s, user + system) at the end of the load window, by thread name
for t in /proc/$jpid/task/*; do awk -v hz="$(getconf CLK_TCK)" '{ sub(/^[0-9]+ \(/, ""); n = $0; sub(/\) .*/, "", n); sub(/.*\) /, ""); printf "%.2f\t%s\n", ($12 + $13) / hz, n }' $t/stat 2>/dev/null; done | sort -rn >threads.txt
awk -v c0="$c0" -v c1="$c1" -v o0="$o0" -v o1="$o1" -v w="$(echo "$tw - $t0" | bc)" -v rb=$((b1 - b0)) -v fl=$((f1 - f0)) -v hwm="$hwm" -v l="$LOADSECS" '/^sent [0-9]+ received [0-9]+/ { s = $2; r = $4 } END { printf "sent %d received %d loadsecs %s jvm_cpu_s %.2f orca_cpu_s %.2f window_s %.1f rec_bytes %.0f orca_minflt %d orca_hwm_kb %d\n", s, r, l, c1 - c0, o1 - o0, w, rb, fl, hwm }' load.log >result.txt
echo "$t0 $tw" >window.txt
kill -TERM $jpid
wait $opid; echo "orca record exit $?"
t1=$(date +%s.%N)
ORCA=$repo/bin/orca
if [ "${ORCA_OFF:-0}" != 1 ] && [ "${NOREPORT:-0}" != 1 ]; then $ORCA report $P >report.txt 2>&1; $ORCA report --json --top 0 $P >report.json 2>&1; fi
ls $W/hs_err* 2>/dev/null && echo CRASH
[ -f report.txt ] && head -12 report.txt
