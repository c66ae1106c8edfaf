"""Prometheus metrics of one master (its own registry, served at `GET /metrics` on the REST address).

openspore_serving_requests_total{servable,method,protocol,status}   requests answered (status: ok / error)
openspore_serving_request_latency_seconds{servable,method,protocol} histogram of request latency
openspore_serving_instances_total{servable,method}                   instances received
openspore_serving_batch_size{servable,method}                        histogram of instances per worker batch
openspore_serving_queue_depth{servable,method}                       instances waiting in the master
openspore_serving_workers{state}                                     worker processes by state
openspore_serving_worker_restarts_total                              worker processes restarted

Generation servables (labels only ever name served generation servables):
openspore_llm_time_to_first_token_seconds{servable}                  histogram, request start → first token
openspore_llm_generation_tokens_total{servable}                      tokens streamed (rate() = tokens/s)
openspore_llm_requests_total{servable,finish_reason}                 generations ended (stop/length/cancelled/...)
openspore_llm_open_streams{servable}                                 generations in progress in the master
openspore_llm_scheduler{servable,stat}                               the workers' scheduler: waiting, running,
                                                                     free_blocks, num_blocks, preemptions, ...

Only servables and methods that a worker registered become label values: a request naming anything else is
counted under `unknown`, so made-up URLs cannot grow the page (or the master's memory) without bound.
"""
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

UNKNOWN = "unknown"
TTFT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self):
        self.registry = CollectorRegistry()
        labels = ("servable", "method")
        self.requests = Counter("openspore_serving_requests", "Requests answered", labels + ("protocol", "status"),
                                registry=self.registry)
        self.latency = Histogram("openspore_serving_request_latency_seconds", "Request latency in seconds",
                                 labels + ("protocol",), buckets=LATENCY_BUCKETS, registry=self.registry)
        self.instances = Counter("openspore_serving_instances", "Instances received", labels, registry=self.registry)
        self.batch_size = Histogram("openspore_serving_batch_size", "Instances per batch sent to a worker", labels,
                                    buckets=BATCH_BUCKETS, registry=self.registry)
        self.depth = Gauge("openspore_serving_queue_depth", "Instances waiting in the master", labels,
                           registry=self.registry)
        self.workers = Gauge("openspore_serving_workers", "Worker processes by state", ("state",),
                             registry=self.registry)
        self.restarts = Counter("openspore_serving_worker_restarts", "Worker processes restarted",
                                registry=self.registry)
        self.ttft = Histogram("openspore_llm_time_to_first_token_seconds", "Seconds from request to first token",
                              ("servable",), buckets=TTFT_BUCKETS, registry=self.registry)
        self.generated = Counter("openspore_llm_generation_tokens", "Generated tokens streamed", ("servable",),
                                 registry=self.registry)
        self.finished = Counter("openspore_llm_requests", "Generations ended, by finish reason",
                                ("servable", "finish_reason"), registry=self.registry)
        self.streams = Gauge("openspore_llm_open_streams", "Generations in progress", ("servable",),
                             registry=self.registry)
        self.scheduler = Gauge("openspore_llm_scheduler", "Continuous-batching scheduler state and counters of the "
                               "workers", ("servable", "stat"), registry=self.registry)
        self._known = set()   # (servable, method) pairs registered by workers
        for protocol in ("rest", "kserve", "grpc", "openai"):  # present from the start: junk requests add no new series
            self.requests.labels(UNKNOWN, UNKNOWN, protocol, "error")
            self.latency.labels(UNKNOWN, UNKNOWN, protocol)

    def register(self, servable, method):
        """Allow (servable, method) as label values (called when a worker registers them)."""
        self._known.add((servable, method))

    def _labels(self, servable, method):
        if (servable, method) in self._known:
            return servable, method
        return UNKNOWN, UNKNOWN

    def request(self, servable, method, protocol, ok, seconds, instances):
        servable, method = self._labels(servable, method)
        self.requests.labels(servable, method, protocol, "ok" if ok else "error").inc()
        self.latency.labels(servable, method, protocol).observe(seconds)
        if instances:
            self.instances.labels(servable, method).inc(instances)

    def batch(self, servable, method, size):
        self.batch_size.labels(servable, method).observe(size)

    def queue_depth(self, servable, method, depth):
        self.depth.labels(servable, method).set(depth)

    def worker_states(self, counts):
        for state in ("starting", "ready", "dead", "failed", "stopped"):
            self.workers.labels(state).set(counts.get(state, 0))

    def render(self):
        return generate_latest(self.registry)
