package dev.toolregistry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Host embedders: a Java callback on the library's threads, and the pull model. */
class EmbedderTest {
    @Test
    void callbackEmbedderRunsOnTheEmbeddingThreadAndRanksHybrid() {
        try (Registry r = new Registry(new RegistryOptions().noEmbedding())) {
            r.register(ApiTest.TOOLS);
            assertNull(r.embeddingStatus());
            Set<String> threads = ConcurrentHashMap.newKeySet();
            r.setEmbedder(64, texts -> {
                threads.add(Thread.currentThread().getName());
                return Cross.fakeEmbed(texts);
            }, "fake", null);
            assertTrue(r.waitEmbeddings(Duration.ofSeconds(60)));
            EmbeddingStatus s = r.embeddingStatus();
            assertEquals("fake", s.embedder());
            assertEquals(64, s.dim());
            assertEquals(3, s.ready());
            assertEquals(0, s.pending());
            assertTrue(threads.contains("toolregistry-embed"), threads.toString());
            Discoverer d = r.discoverer();
            List<Hit> hits = d.discover("read file", 3);
            assertEquals("read_file", hits.get(0).name());
            assertEquals("hybrid", d.explain("read file", "read_file").profile());
            assertTrue(r.toolsStatus().stream().allMatch(t -> "ready".equals(t.embedding())));
        }
    }

    @Test
    void aFailingEmbedderFailsItsBatchOnly() {
        try (Registry r = new Registry(new RegistryOptions().noEmbedding())) {
            r.register(ApiTest.TOOLS);
            r.setEmbedder(8, texts -> {
                throw new IllegalStateException("embedding API down");
            }, null, null);
            assertTrue(r.waitEmbeddings(Duration.ofSeconds(60)));
            EmbeddingStatus s = r.embeddingStatus();
            assertEquals(3, s.failed());
            assertTrue(String.join(" ", s.warnings()).contains("embedding API down"), s.warnings().toString());
            // Still found by words.
            assertEquals("read_file", r.discoverer().discover("read a file", 1).get(0).name());
            r.setEmbedder(8, texts -> new float[texts.size()][3], null, null);
            assertTrue(r.waitEmbeddings(Duration.ofSeconds(60)));
            assertTrue(String.join(" ", r.embeddingStatus().warnings()).contains("expected 8"), r.embeddingStatus().warnings().toString());
        }
    }

    @Test
    void pullEmbedderFeedsVectorsAndQueries() throws Exception {
        try (Registry r = new Registry(new RegistryOptions().noEmbedding())) {
            r.register(ApiTest.TOOLS);
            r.setPullEmbedder(64, "pulled", null);
            AsyncEmbedder embed = texts -> CompletableFuture.supplyAsync(() -> Cross.fakeEmbed(texts));
            int embedded = r.embedPendingAsync(embed).get(60, TimeUnit.SECONDS);
            assertEquals(3, embedded);
            assertEquals(3, r.embeddingStatus().ready());
            Discoverer d = r.discoverer();
            List<Hit> hits = d.discoverAsync("read file", embed, new DiscoverOptions().topK(2)).get(10, TimeUnit.SECONDS);
            assertEquals("read_file", hits.get(0).name());
            // A bad vector is refused as a whole, nothing applied.
            r.register("{\"name\": \"new_tool\", \"description\": \"Something new.\"}");
            List<EmbeddingJob> jobs = List.of();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (jobs.isEmpty() && System.nanoTime() < deadline) {
                jobs = r.takeEmbeddingJobs(0);
            }
            assertEquals(1, jobs.size());
            List<EmbeddingJob> taken = jobs;
            ToolRegistryException e = assertThrows(ToolRegistryException.class, () -> r.putEmbeddings(taken, new float[][] {new float[64]}));
            assertEquals(Status.INVALID_ARGUMENT, e.status());
            r.failEmbeddings(jobs, "no vector today");
            assertTrue(r.waitEmbeddings(Duration.ofSeconds(10)));
            assertEquals(1, r.embeddingStatus().failed());
        }
    }

    @Test
    void pullModelTakesNoJobsWithoutAPullEmbedder() {
        try (Registry r = new Registry(new RegistryOptions().noEmbedding())) {
            assertEquals(Status.INVALID_ARGUMENT, assertThrows(ToolRegistryException.class, () -> r.takeEmbeddingJobs(1)).status());
            assertTrue(r.waitEmbeddings(Duration.ZERO));
            assertFalse(r.toolsStatus().iterator().hasNext());
        }
    }
}
