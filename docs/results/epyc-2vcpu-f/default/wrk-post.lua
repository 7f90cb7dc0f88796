-- Written by fairpair. The request is set at the top level so every connection uses it.
wrk.method = "POST"
wrk.body = "{\"name\":\"Bench User\",\"email\":\"bench@example.com\"}"
wrk.headers["Content-Type"] = "application/json"

-- Exact figures from wrk's histogram (microseconds), as one JSON line the harness reads.
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"fairpair_wrk":1,"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"mean":%.3f,"stdev":%.3f,"max":%d,"p50":%d,"p90":%d,"p99":%d,"p99_9":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.mean, latency.stdev, latency.max,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
