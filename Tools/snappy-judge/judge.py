#!/usr/bin/python3
"""Google's libsnappy (through Debian's python3-snappy) judges the exporter's
snappy: a corpus of shapes is compressed by ours (the filter built from
Snappy.swift and main.swift) and must decompress in libsnappy to the input, byte for byte. Usage: judge.py FILTER"""

import random
import struct
import subprocess
import sys

import snappy


def corpus():
    rng = random.Random(52)   # fixed: the same corpus on every run
    exposition = "".join(
        '# HELP reach_target_reachable Whether the target is reachable.\n# TYPE reach_target_reachable gauge\n'
        'reach_target_reachable{target="t%d",gateway="gw%d"} %d\n'
        'reach_probe_rtt_seconds_bucket{interface="wan%d",le="%s"} %d\n'
        % (i, i % 7, i % 2, i % 3, ["0.005", "0.01", "0.1", "+Inf"][i % 4], rng.randrange(100000))
        for i in range(3000)).encode()
    random_bytes = bytes(rng.randrange(256) for _ in range(200_000))
    shapes = {
        "empty": b"",
        "one byte": b"\x07",
        "short": b"abcd",
        "seven": b"abcdefg",
        "literal of 60": random_bytes[:60],
        "literal of 61": random_bytes[:61],
        "literal of 300 (2 length bytes)": random_bytes[:300],
        "literal of 70,000 (3 length bytes, 2 blocks)": random_bytes[:70_000],
        "a run of 200,000 zeros": bytes(200_000),
        "a run of 65": b"x" * 65,
        "a run of 68": b"y" * 68,
        "a run of 69": b"z" * 69,
        "offset past 2,048": random_bytes[:3000] + random_bytes[:3000],
        "offset past 65,536 (within a block at most 65,535)": random_bytes[:66_000] + random_bytes[:66_000],
        "exactly one 64 KiB block": random_bytes[:65_536],
        "one byte past a block": random_bytes[:65_537],
        "three blocks and some": (exposition * 2)[:3 * 65_536 + 123],
        "random bytes": random_bytes,
        "exposition text": exposition,
    }
    # Mixed: noise between repeated text, copies of every length and distance.
    mixed = bytearray()
    for i in range(400):
        mixed += random_bytes[i * 37 % 100_000:][:rng.randrange(1, 80)]
        start = rng.randrange(len(exposition) - 700)
        mixed += exposition[start:start + rng.randrange(4, 700)]
    shapes["mixed"] = bytes(mixed)
    for n in range(0, 130):   # every short length, repetitive and not
        shapes["repeat %d" % n] = (b"ab" * 100)[:n]
        shapes["noise %d" % n] = random_bytes[1000:1000 + n]
    return shapes


def main():
    shapes = corpus()
    names = list(shapes)
    stdin = b"".join(struct.pack("<I", len(shapes[name])) + shapes[name] for name in names)
    out = subprocess.run([sys.argv[1]], input=stdin, stdout=subprocess.PIPE, check=True).stdout
    failures, offset, total_in, total_out = [], 0, 0, 0
    for name in names:
        (count,) = struct.unpack_from("<I", out, offset)
        compressed = out[offset + 4:offset + 4 + count]
        offset += 4 + count
        original = shapes[name]
        total_in += len(original)
        total_out += len(compressed)
        # (libsnappy's Uncompress validates as it goes, and refuses what is
        # not snappy; python3-snappy 0.5.3's isValidCompressed fails on
        # Python 3.10 and later, before reaching libsnappy.)
        try:
            back = snappy.uncompress(compressed)
        except Exception as error:
            failures.append("%s: libsnappy cannot decompress it: %s" % (name, error))
            continue
        if back != original:
            at = next((i for i, (a, b) in enumerate(zip(back, original)) if a != b), min(len(back), len(original)))
            failures.append("%s: %d bytes back for %d, first difference at %d" % (name, len(back), len(original), at))
    if offset != len(out):
        failures.append("the filter wrote %d bytes more than its answers" % (len(out) - offset))
    for failure in failures:
        print("snappy-judge: " + failure, file=sys.stderr)
    print("snappy-judge: %d inputs, %d bytes compressed by ours to %d; libsnappy %s: %s"
          % (len(names), total_in, total_out, snappy.__version__ if hasattr(snappy, "__version__") else "(python3-snappy)",
             "%d failed" % len(failures) if failures else "every one valid and byte for byte"))
    sys.exit(1 if failures else 0)


main()
