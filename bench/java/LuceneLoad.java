// Lucene 8: I indexer and Q searcher threads on one IndexWriter and SearcherManager,
// a refresher thread; runs until killed (SIGTERM), or for S seconds when given.
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.store.*;
public final class LuceneLoad {
  public static void main(String[] a) throws Exception {
    Path dir = Paths.get(a[0]);
    int ni = Integer.parseInt(a[1]), nq = Integer.parseInt(a[2]);
    boolean idle = a.length > 3 && a[3].equals("idle");
    Directory d = FSDirectory.open(dir);
    IndexWriterConfig cfg = new IndexWriterConfig(new StandardAnalyzer());
    cfg.setRAMBufferSizeMB(8);
    IndexWriter w = new IndexWriter(d, cfg);
    SearcherManager sm = new SearcherManager(w, null);
    String[] words = {"alpha","beta","gamma","delta","epsilon","zeta","eta","theta","iota","kappa","lambda","mu"};
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try { sm.close(); w.close(); System.out.println("closed: " + w.getDocStats().numDocs + " docs"); } catch (Exception e) { e.printStackTrace(); }
    }, "closer"));
    if (idle) { Thread.currentThread().join(); }
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < ni; i++) {
      final int id = i;
      ts.add(new Thread(() -> {
        Random r = new Random(id); long n = 0;
        try {
          while (true) {
            Document doc = new Document();
            doc.add(new StringField("id", id + "-" + (n % 5000), Field.Store.YES));
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < 30; k++) sb.append(words[r.nextInt(words.length)]).append(' ');
            doc.add(new TextField("body", sb.toString(), Field.Store.NO));
            w.updateDocument(new Term("id", id + "-" + (n % 5000)), doc);
            if (++n % 2000 == 0) w.commit();
          }
        } catch (AlreadyClosedException e) { } catch (Exception e) { e.printStackTrace(); }
      }, "indexer-" + i));
    }
    for (int i = 0; i < nq; i++) {
      final int id = i;
      ts.add(new Thread(() -> {
        Random r = new Random(100 + id);
        try {
          while (true) {
            IndexSearcher s = sm.acquire();
            try { s.search(new TermQuery(new Term("body", words[r.nextInt(words.length)])), 10); }
            finally { sm.release(s); }
          }
        } catch (AlreadyClosedException e) { } catch (Exception e) { e.printStackTrace(); }
      }, "searcher-" + i));
    }
    ts.add(new Thread(() -> {
      try { while (true) { Thread.sleep(50); sm.maybeRefresh(); } } catch (AlreadyClosedException e) { } catch (Exception e) { e.printStackTrace(); }
    }, "refresher"));
    for (Thread t : ts) { t.setDaemon(true); t.start(); }
    Thread.currentThread().join();
  }
}
