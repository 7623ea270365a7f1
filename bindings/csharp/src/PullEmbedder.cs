using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.Serialization;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

// The private [DataMember] fields are written by DataContractJsonSerializer through reflection.
#pragma warning disable 0649

namespace ToolRegistry
{
    // The pull embedder: the registry calls no embedder; the host takes the texts that need a vector
    // (TakeEmbeddingJobs), computes them however it likes (an HTTP embedding API, awaited) and puts
    // them back (PutEmbeddings). EmbedPendingAsync does both with an async function; a query brings
    // its own vector (DiscoverRequest.QueryVector, Discoverer.DiscoverAsync).

    /// <summary>One text waiting for a vector, from <see cref="Registry.TakeEmbeddingJobs"/>.</summary>
    [DataContract]
    public sealed class EmbeddingJob
    {
        [DataMember(Name = "id")] private long id;
        [DataMember(Name = "text")] private string text;

        /// <summary>The job's id, to name in the result.</summary>
        public long Id { get { return id; } }

        /// <summary>The text to embed.</summary>
        public string Text { get { return text; } }
    }

    public sealed partial class Registry
    {
        /// <summary>
        /// Makes the host the registry's embedder, pulled: tools wait for vectors the host puts back
        /// (<see cref="EmbedPendingAsync"/>, or <see cref="TakeEmbeddingJobs"/> and
        /// <see cref="PutEmbeddingsJson"/>), and a "hybrid" discover ranks with
        /// <see cref="DiscoverRequest.QueryVector"/>, or by words without one. Replaces any embedder set before.
        /// </summary>
        /// <param name="dim">The length of every vector (1 to 8192).</param>
        /// <param name="identity">Names the model for the vector cache (default "host:DIM").</param>
        /// <param name="cachePath">A file keeping the vectors across restarts, or null.</param>
        /// <exception cref="InvalidInputException">A bad dim; nothing changed.</exception>
        public void SetPullEmbedder(int dim, string identity = null, string cachePath = null)
        {
            var options = Utf8.EncodeRequired(new JsonObjectWriter().Add("dim", dim).Add("identity", identity)
                .Add("cache_path", cachePath).Add("pull", true).ToString(), "options");
            IntPtr err;
            Native.Check(Native.tr_registry_set_embedder(Handle, options, IntPtr.Zero, IntPtr.Zero, IntPtr.Zero, out err), err);
        }

        /// <summary>Up to <paramref name="max"/> texts waiting for a vector (0: 64); empty when none waits.</summary>
        public IReadOnlyList<EmbeddingJob> TakeEmbeddingJobs(int max = 0)
        {
            return JsonReader.Deserialize<EmbeddingJob[]>(TakeEmbeddingJobsJson(max));
        }

        /// <summary>Like <see cref="TakeEmbeddingJobs"/>, as the library's JSON: <c>[{"id": int, "text": str}]</c>.</summary>
        public string TakeEmbeddingJobsJson(int max = 0)
        {
            if (max < 0)
            {
                throw new ArgumentOutOfRangeException("max", max, "must not be negative");
            }
            IntPtr json, err;
            Native.Check(Native.tr_registry_take_embedding_jobs(Handle, new UIntPtr((uint)max), out json, out err), err);
            return Utf8.Take(json);
        }

        /// <summary>
        /// Hands vectors back, all or none: <c>[{"id", "vector": [dim numbers]} | {"id", "error": str}]</c>.
        /// Stale ids (the tool changed or went) are ignored.
        /// </summary>
        /// <exception cref="InvalidInputException">A vector of the wrong length, NaN or infinite, or all zeros; nothing applied.</exception>
        public void PutEmbeddingsJson(string resultsJson)
        {
            var results = Utf8.EncodeRequired(resultsJson, "resultsJson");
            IntPtr err;
            Native.Check(Native.tr_registry_put_embeddings(Handle, results, out err), err);
        }

        /// <summary>Hands back one vector per job, in order (see <see cref="PutEmbeddingsJson"/>).</summary>
        public void PutEmbeddings(IReadOnlyList<EmbeddingJob> jobs, float[][] vectors)
        {
            if (jobs == null)
            {
                throw new ArgumentNullException("jobs");
            }
            if (vectors == null || vectors.Length != jobs.Count)
            {
                throw new ArgumentException((vectors == null ? "no vectors" : vectors.Length + " vectors") + " for " + jobs.Count + " jobs", "vectors");
            }
            var sb = new StringBuilder("[");
            for (int i = 0; i < jobs.Count; i++)
            {
                if (i > 0)
                {
                    sb.Append(',');
                }
                if (vectors[i] == null)
                {
                    throw new ArgumentException("vectors[" + i + "] is null", "vectors");
                }
                sb.Append("{\"id\":").Append(jobs[i].Id.ToString(CultureInfo.InvariantCulture)).Append(",\"vector\":");
                AppendVector(sb, vectors[i], "vectors[" + i + "]");
                sb.Append('}');
            }
            PutEmbeddingsJson(sb.Append(']').ToString());
        }

        /// <summary>Reports that these jobs could not be embedded: their tools are found by words until their text changes.</summary>
        public void FailEmbeddings(IReadOnlyList<EmbeddingJob> jobs, string message)
        {
            if (jobs == null)
            {
                throw new ArgumentNullException("jobs");
            }
            var sb = new StringBuilder("[");
            foreach (var job in jobs)
            {
                if (sb.Length > 1)
                {
                    sb.Append(',');
                }
                sb.Append("{\"id\":").Append(job.Id.ToString(CultureInfo.InvariantCulture)).Append(",\"error\":");
                JsonObjectWriter.WriteString(sb, HostFunctions.Sanitize(message ?? "the embedder failed"));
                sb.Append('}');
            }
            PutEmbeddingsJson(sb.Append(']').ToString());
        }

        /// <summary>
        /// Embeds every text waiting for a vector with <paramref name="embed"/>, batch by batch (up to
        /// 64 texts, each batch awaited), until no enabled tool waits (<see cref="EmbeddingStatus"/>
        /// Pending 0); returns how many texts got a vector. The embedding thread queues texts a moment
        /// after a change, so while tools wait and nothing is offered yet it polls every few
        /// milliseconds (awaiting, never blocking). A batch <paramref name="embed"/> fails on (an
        /// exception, null, a wrong count) is reported failed (found by words) and the next goes on;
        /// vectors the library refuses (wrong length, NaN, all zeros) throw
        /// <see cref="InvalidInputException"/>. Cancelling the token throws
        /// <see cref="OperationCanceledException"/>; a batch in hand is then reported failed.
        /// </summary>
        public async Task<int> EmbedPendingAsync(Func<IReadOnlyList<string>, Task<float[][]>> embed, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (embed == null)
            {
                throw new ArgumentNullException("embed");
            }
            int embedded = 0;
            while (true)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var jobs = TakeEmbeddingJobs();
                if (jobs.Count == 0)
                {
                    var status = EmbeddingStatus();
                    if (status == null || status.Pending == 0)
                    {
                        return embedded;
                    }
                    await Task.Delay(2, cancellationToken).ConfigureAwait(false);
                    continue;
                }
                var texts = new string[jobs.Count];
                for (int i = 0; i < texts.Length; i++)
                {
                    texts[i] = jobs[i].Text;
                }
                float[][] vectors = null;
                string failure = null;
                try
                {
                    var task = embed(texts);
                    vectors = task == null ? null : await task.ConfigureAwait(false);
                    if (vectors == null || vectors.Length != texts.Length)
                    {
                        failure = "the embedder returned " + (vectors == null ? "null" : vectors.Length + " vectors") + " for " + texts.Length + " texts";
                    }
                }
                catch (Exception e)
                {
                    failure = "the embedder threw " + e.GetType().Name + ": " + e.Message;
                }
                if (cancellationToken.IsCancellationRequested)
                {
                    FailEmbeddings(jobs, "cancelled");
                    cancellationToken.ThrowIfCancellationRequested();
                }
                if (failure != null)
                {
                    FailEmbeddings(jobs, failure);
                    continue;
                }
                PutEmbeddings(jobs, vectors);
                embedded += jobs.Count;
            }
        }

        internal static void AppendVector(StringBuilder sb, float[] vector, string what)
        {
            sb.Append('[');
            for (int j = 0; j < vector.Length; j++)
            {
                if (float.IsNaN(vector[j]) || float.IsInfinity(vector[j]))
                {
                    throw new InvalidInputException(Status.InvalidArgument, what + "[" + j + "] is not a finite number");
                }
                if (j > 0)
                {
                    sb.Append(',');
                }
                sb.Append(vector[j].ToString("R", CultureInfo.InvariantCulture));
            }
            sb.Append(']');
        }
    }

    public sealed partial class Discoverer
    {
        /// <summary>
        /// Embeds <paramref name="query"/> with <paramref name="embed"/> (awaited) and discovers with
        /// that vector (<see cref="DiscoverRequest.QueryVector"/>): a "hybrid" discover on a registry
        /// with a pull embedder (<see cref="Registry.SetPullEmbedder"/>). An embedder that fails
        /// throws; the request is not changed.
        /// </summary>
        public async Task<IReadOnlyList<DiscoverResult>> DiscoverAsync(string query, Func<IReadOnlyList<string>, Task<float[][]>> embed, DiscoverRequest request = null, CancellationToken cancellationToken = default(CancellationToken))
        {
            if (query == null)
            {
                throw new ArgumentNullException("query");
            }
            if (embed == null)
            {
                throw new ArgumentNullException("embed");
            }
            cancellationToken.ThrowIfCancellationRequested();
            var task = embed(new[] { query });
            float[][] vectors = task == null ? null : await task.ConfigureAwait(false);
            if (vectors == null || vectors.Length != 1 || vectors[0] == null)
            {
                throw new InvalidOperationException("the embedder returned no vector for the query");
            }
            cancellationToken.ThrowIfCancellationRequested();
            var r = request ?? new DiscoverRequest();
            var withVector = new DiscoverRequest
            {
                TopK = r.TopK,
                ApiFormat = r.ApiFormat,
                Namespaces = r.Namespaces,
                Tags = r.Tags,
                Deferred = r.Deferred,
                Strict = r.Strict,
                MaxTokens = r.MaxTokens,
                QueryVector = vectors[0],
            };
            return Discover(query, withVector);
        }
    }
}
