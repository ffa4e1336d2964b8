"""The share of python-zstandard's tests that lzkit.zstd passes, per API
of issue 34's item 3: for each API, the tests python-zstandard passes and
how many of those lzkit passes; then the totals.

    python zstandard_api_share.py BASELINE.xml LZKIT.xml [--floor PERCENT]

The two files are the JUnit reports of python_zstandard_suite.sh
(JUNIT_DIR=dir keeps them). A test belongs to an API by its test class
(python-zstandard names a class after what it tests: ``TestCompressor_
stream_writer``, ``TestDecompressor_read_to_iter``; its fuzzing classes
add ``_fuzzing``, which is dropped), as ``API`` below states. Classes
that ``API`` does not name are outside item 3 and counted apart.

Prints only; with ``--floor P`` it exits 1 if the share of item 3's
required APIs falls under P percent.
"""

import sys

from compare_junit import outcomes

# Test class (its ``_fuzzing`` suffix dropped) -> (API of item 3, required?).
# Not required: what item 3 asks for "if cheap" (python-zstandard's
# C-backend extras: multi_compress_to_buffer and the buffer types the
# multi_* functions use, multi_decompress_to_buffer with them).
API = {
    "TestCompressor": ("ZstdCompressor() arguments, memory_size", True),
    "TestCompressor_compress": ("ZstdCompressor.compress", True),
    "TestCompressor_compressobj": ("ZstdCompressor.compressobj", True),
    "TestCompressor_stream_writer": ("ZstdCompressor.stream_writer", True),
    "TestCompressor_stream_reader": ("ZstdCompressor.stream_reader", True),
    "TestCompressor_copy_stream": ("ZstdCompressor.copy_stream", True),
    "TestCompressor_read_to_iter": ("ZstdCompressor.read_to_iter", True),
    "TestDecompressor": ("ZstdDecompressor() arguments, memory_size", True),
    "TestDecompressor_decompress": ("ZstdDecompressor.decompress", True),
    "TestDecompressor_decompressobj": ("ZstdDecompressor.decompressobj", True),
    "TestDecompressor_stream_reader": ("ZstdDecompressor.stream_reader", True),
    "TestDecompressor_stream_writer": ("ZstdDecompressor.stream_writer", True),
    "TestDecompressor_copy_stream": ("ZstdDecompressor.copy_stream", True),
    "TestDecompressor_read_to_iter": ("ZstdDecompressor.read_to_iter", True),
    "TestCompressionDict": ("ZstdCompressionDict", True),
    "TestTrainDictionary": ("train_dictionary", True),
    "TestOpen": ("open", True),
    "TestFrameParameters": ("FrameParameters, get_frame_parameters", True),
    "TestFrameHeaderSize": ("FrameParameters, get_frame_parameters", True),
    "TestFrameContentSize": ("FrameParameters, get_frame_parameters", True),
    "TestModuleAttributes": ("constants, defaults, backend attributes", True),
    "TestCompressor_multi_compress_to_buffer": ("multi_compress_to_buffer (if cheap)", False),
    "TestDecompressor_multi_decompress_to_buffer": ("multi_decompress_to_buffer (if cheap)", False),
    "TestBufferWithSegments": ("BufferWithSegments* (if cheap)", False),
    "TestBufferWithSegmentsCollection": ("BufferWithSegments* (if cheap)", False),
}
# Outside item 3 (counted apart): TestCompressor_chunker,
# TestDecompressor_content_dict_chain, TestCompressionParameters(Hypothesis),
# TestSizes (estimate_*), TestCompress/TestDecompress (module functions).


def api_of(test_id):
    """(API, required) of a test id ``tests.module.Class::test``; None if
    its class is outside item 3."""
    cls = test_id.split("::", 1)[0].rsplit(".", 1)[-1]
    return API.get(cls.removesuffix("_fuzzing"))


def share(base, ours):
    """API -> [required, passed by the baseline, passed by lzkit too]."""
    table = {}
    for test, outcome in base.items():
        if outcome != "passed":
            continue
        api, required = api_of(test) or ("(outside item 3)", None)
        row = table.setdefault(api, [required, 0, 0])
        row[1] += 1
        row[2] += ours.get(test) == "passed"
    return table


def pct(a, b):
    return f"{100 * a / b:5.1f}%" if b else "    -"


def main(argv):
    floor = None
    if "--floor" in argv:
        i = argv.index("--floor")
        floor = float(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    base, ours = outcomes(argv[0]), outcomes(argv[1])
    table = share(base, ours)
    width = max(len(a) for a in table)
    print(f"{'item 3 API':<{width}}  lzkit / python-zstandard")
    totals = {True: [0, 0], False: [0, 0], None: [0, 0]}
    for api, (required, n, ok) in sorted(table.items(), key=lambda kv: (kv[1][0] is None, not kv[1][0], kv[0])):
        print(f"{api:<{width}}  {ok:3d} / {n:3d}  {pct(ok, n)}")
        totals[required][0] += ok
        totals[required][1] += n
    req, opt, out = totals[True], totals[False], totals[None]
    both = [req[0] + opt[0], req[1] + opt[1]]
    print(f"item 3, required APIs: {req[0]} / {req[1]} {pct(*req)}; "
          f"with the 'if cheap' ones: {both[0]} / {both[1]} {pct(*both)}; "
          f"outside item 3: {out[0]} / {out[1]}")
    if floor is not None and req[1] and 100 * req[0] / req[1] < floor:
        print(f"item 3's share is under the floor of {floor}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
