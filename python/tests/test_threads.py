"""Objects are shared between threads, and long operations release the interpreter."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import vtdx

BIG = b"<r>" + b"".join(b"<i n='%d'><v>%d</v></i>" % (k, k) for k in range(40000)) + b"</r>"


def test_shared_document_and_xpath_from_many_threads():
    doc = vtdx.parse(BIG)
    xp = vtdx.XPath("count(//i[v mod $m = 0])")
    root = doc.root

    def work(m):
        a = xp(doc, m=m)
        b = len(root.findall("i[v='%d']" % m))
        c = sum(1 for _ in root.iter("v"))
        return a, b, c

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(1, 33)))
    for m, (a, b, c) in zip(range(1, 33), results):
        assert a == float(len(range(0, 40000, m)))
        assert b == 1 and c == 40000


def test_parsing_in_threads():
    with ThreadPoolExecutor(4) as pool:
        docs = list(pool.map(vtdx.parse, [BIG] * 8))
    assert all(d.xpath("count(//i)") == 40000.0 for d in docs)
    parser = vtdx.XMLParser()
    with ThreadPoolExecutor(4) as pool:
        roots = list(pool.map(parser.fromstring, [b"<a n='%d'/>" % k for k in range(200)]))
    assert [r.get("n") for r in roots] == [str(k) for k in range(200)]


def test_shared_iterator_hands_out_each_item_once():
    it = vtdx.fromstring(BIG).iter("i")
    seen = []
    lock = threading.Lock()

    def drain():
        for e in it:
            with lock:
                seen.append(e.get("n"))

    threads = [threading.Thread(target=drain) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seen, key=int) == [str(k) for k in range(40000)]


def test_long_operations_release_the_interpreter():
    # while one thread parses, queries, edits and canonicalizes a large document,
    # another thread keeps running; with the interpreter held during a call, the
    # ticker could not tick inside it at all
    huge = b"<r>" + b"<i><v>1</v></i>" * 1000000 + b"</r>"
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.0002)

    t = threading.Thread(target=ticker)
    t.start()
    spans = []

    def timed(f, *a, **k):
        start = time.perf_counter()
        r = f(*a, **k)
        spans.append((start, time.perf_counter()))
        return r

    try:
        time.sleep(0.01)
        doc = timed(vtdx.parse, huge)
        timed(doc.xpath, "count(//v[. = 1])")
        timed(vtdx.canonicalize, doc)
        ed = vtdx.Editor(doc)
        ed.set_text(doc.root[0], "x")
        timed(ed.output)
    finally:
        stop.set()
        t.join()
    inside = sum(1 for x in ticks for (a, b) in spans if a < x < b)
    assert inside >= 4, (inside, [round((b - a) * 1000, 1) for a, b in spans])
