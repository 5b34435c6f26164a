#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets (tools/fuzz/*.cc) into a git-ignored folder:
#
#   build/fuzz-corpus/<target>/seed/   generated here (rebuilt by every run of this script)
#   build/fuzz-corpus/<target>/work/   what libFuzzer adds while fuzzing (kept; tools/fuzz/run.sh)
#   build/fuzz-corpus/*.dict           dictionaries (jpeg.dict + image.dict, a pipeline-JSON one
#                                      generated from the operator schemas, a file-list one)
#
# Sources: the image test data (../shared/data, or $SLUICE_TEST_DATA), small variants made
# from it with cjpeg / djpeg when they are installed (progressive, arithmetic, restart markers,
# subsampling, grey; BMP and PNM outputs), tiny BMP / PNM files written by Python, and the
# committed regression inputs tests/fuzz_corpus/<target>/ (run.sh passes those directly).
# Images larger than 128 KiB are left out of the image seeds (they are slow to fuzz and mostly
# over the 1 MP cap); small copies of the large JPEG photos are made with djpeg -scale 1/4.
#
# Usage: tools/fuzz/make_corpus.sh [OUT_DIR]      (default build/fuzz-corpus)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/fuzz-corpus}
data=${SLUICE_TEST_DATA:-../shared/data}
py=$(command -v python3 || true)

for t in fuzz_image fuzz_jpeg_structure fuzz_file_list fuzz_pipeline_json; do
  rm -rf "$out/$t/seed"
  mkdir -p "$out/$t/seed" "$out/$t/work"
done
img="$out/fuzz_image/seed"
jst="$out/fuzz_jpeg_structure/seed"

# 1. Test data: every image up to 128 KiB; content-addressed names (no duplicates).
add() {  # add FILE DIR
  local h
  h=$(sha1sum "$1" | cut -c1-16)
  cp "$1" "$2/$h.${1##*.}"
}
if [ -d "$data" ]; then
  while IFS= read -r -d '' f; do
    add "$f" "$img"
    case "$f" in *.jpg|*.jpeg|*.JPG) add "$f" "$jst" ;; esac
  done < <(find "$data" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' \) \
             -size -129k -print0)
  # The large JPEGs still teach the structure check (it reads no pixels).
  while IFS= read -r -d '' f; do add "$f" "$jst"; done \
    < <(find "$data" -type f \( -iname '*.jpg' -o -iname '*.jpeg' \) -size +128k -print0)
else
  echo "make_corpus.sh: no test data at $data (set SLUICE_TEST_DATA); using only generated seeds" >&2
fi

# 2. Variants made with libjpeg-turbo's tools, from one small photo.
src="$data/photos/ijg_testorig.jpg"
if command -v cjpeg > /dev/null && command -v djpeg > /dev/null && [ -f "$src" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  djpeg -ppm "$src" > "$tmp/src.ppm"
  djpeg -scale 1/2 -ppm "$src" > "$tmp/half.ppm"
  n=0
  for opts in "-progressive" "-arithmetic" "-restart 1" "-restart 2B -optimize" \
              "-sample 1x1" "-sample 2x1" "-sample 1x2" "-sample 4x1" "-sample 4x2" \
              "-grayscale" "-rgb" "-progressive -arithmetic" "-quality 5" "-quality 100 -dct int" \
              "-progressive -restart 3" "-smooth 50" "-baseline -quality 1"; do
    for in in half src; do
      # shellcheck disable=SC2086
      cjpeg $opts "$tmp/$in.ppm" > "$tmp/v$n.jpg" 2> /dev/null && {
        add "$tmp/v$n.jpg" "$img"
        add "$tmp/v$n.jpg" "$jst"
      }
      n=$((n + 1))
    done
  done
  for opts in "-bmp" "-os2" "-bmp -colors 16" "-bmp -grayscale" "-pnm" \
              "-pnm -grayscale"; do
    ext=${opts:1:3}
    [ "$ext" = os2 ] && ext=bmp
    # shellcheck disable=SC2086
    djpeg -scale 1/4 $opts "$src" > "$tmp/o$n.$ext" && add "$tmp/o$n.$ext" "$img"
    n=$((n + 1))
  done
  # Quarter-size copies of the large photos.
  for f in "$data"/photos/*.jpg; do
    [ "$(stat -c %s "$f")" -gt 131072 ] || continue
    djpeg -scale 1/4 -ppm "$f" 2> /dev/null | cjpeg -quality 80 > "$tmp/s$n.jpg" 2> /dev/null &&
      add "$tmp/s$n.jpg" "$img"
    n=$((n + 1))
  done
fi

# 3. Tiny BMP / PNM files of every header variant the decoders support.
if [ -n "$py" ]; then
  "$py" - "$img" << 'EOF'
import os, struct, sys
out = sys.argv[1]
def put(name, data):
    open(os.path.join(out, name), "wb").write(data)

# PNM: plain and binary, 8 and 16 bit, bitmaps.
put("p1.pbm", b"P1\n# comment\n5 3\n0 1 0 1 1\n1 0 1 0 0\n0 0 0 1 1\n")
put("p2.pgm", b"P2 3 2 255\n0 128 255\n7 8 9\n")
put("p3.ppm", b"P3\n2 2\n1000\n0 0 0 1000 1000 1000\n500 0 0 0 0 999\n")
put("p4.pbm", b"P4\n9 2\n" + bytes([0xA5, 0x80, 0x5A, 0x00]))
put("p5.pgm", b"P5\n4 2\n255\n" + bytes(range(8)))
put("p5_16.pgm", b"P5\n2 2\n65535\n" + bytes([0, 1, 2, 3, 255, 255, 128, 0]))
put("p6.ppm", b"P6\n2 1\n255\n" + bytes([255, 0, 0, 0, 255, 0]))
put("p6_16.ppm", b"P6\t1 1 300\n" + bytes([1, 44, 0, 7, 0, 150]))

def bmp(w, h, bpp, pixels, palette=b"", header=40, compression=0, masks=b""):
    dib = struct.pack("<IiiHHIIiiII", header, w, h, 1, bpp, compression, len(pixels),
                      2835, 2835, len(palette) // 4, 0)
    if header > 40:
        dib += masks.ljust(header - 40, b"\0")
    off = 14 + len(dib) + len(palette)
    return b"BM" + struct.pack("<IHHI", off + len(pixels), 0, 0, off) + dib + palette + pixels

pal2 = bytes([0, 0, 0, 0, 255, 255, 255, 0])
put("b1.bmp", bmp(3, 2, 1, bytes([0xA0, 0, 0, 0, 0x40, 0, 0, 0]), pal2))
pal16 = b"".join(bytes([i * 16, 255 - i * 16, i, 0]) for i in range(16))
put("b4.bmp", bmp(3, 2, 4, bytes([0x12, 0x30, 0, 0, 0xF0, 0xE0, 0, 0]), pal16))
pal256 = b"".join(bytes([i, i, i, 0]) for i in range(256))
put("b8_topdown.bmp", bmp(2, -2, 8, bytes([1, 2, 0, 0, 3, 4, 0, 0]), pal256))
put("b24.bmp", bmp(2, 2, 24, bytes([1, 2, 3, 4, 5, 6, 0, 0, 7, 8, 9, 10, 11, 12, 0, 0])))
put("b32.bmp", bmp(2, 1, 32, bytes([1, 2, 3, 4, 5, 6, 7, 8])))
masks = struct.pack("<IIII", 0x00FF0000, 0x0000FF00, 0x000000FF, 0xFF000000)
put("b32_bitfields_v4.bmp", bmp(1, 2, 32, bytes([1, 2, 3, 128, 4, 5, 6, 255]), header=108,
                                 compression=3, masks=masks))
put("b32_bitfields_v5.bmp", bmp(1, 1, 32, bytes([9, 8, 7, 6]), header=124, compression=3,
                                 masks=masks))

# TIFF/EXIF blobs as parse_exif_orientation sees them (fuzz_image feeds it the raw bytes).
def exif(le, orient, typ=3):
    e = "<" if le else ">"
    entry = struct.pack(e + "HHI", 0x0112, typ, 1) + (
        struct.pack(e + "HH", orient, 0) if typ == 3 else struct.pack(e + "I", orient))
    return (b"II*\0" if le else b"MM\0*") + struct.pack(e + "I", 8) + struct.pack(e + "H", 1) + \
        entry + b"\0\0\0\0"
put("exif_le.tif", b"Exif\0\0" + exif(True, 6))
put("exif_be_long.tif", exif(False, 8, typ=4))
EOF
fi

# 4. File lists: the committed inputs are the seeds; add a long one with runs in one folder.
fl="$out/fuzz_file_list/seed"
{
  for i in $(seq 0 99); do echo "a/img_$i.jpg $((i % 7))"; done
  echo "in/x.jpg 1"
  echo "# trailing comment"
} > "$fl/long_list.txt"

# 5. Dictionaries.
cat tools/fuzz/jpeg.dict tools/fuzz/image.dict > "$out/fuzz_image.dict"
cp tools/fuzz/jpeg.dict "$out/fuzz_jpeg_structure.dict"
cp tools/fuzz/file_list.dict "$out/fuzz_file_list.dict"
cp tools/fuzz/coco.dict "$out/fuzz_coco.dict"
{
  echo "# Generated by tools/fuzz/make_corpus.sh: JSON keys and the string literals of the"
  echo "# operator schemas (operator types, argument names, enum values)."
  for k in format sluice-pipeline version params ops outputs type name device inputs \
           arg_inputs args cpu mixed gpu prefetch_queue_depth cpu_size gpu_size; do
    echo "\"\\\"$k\\\"\""
  done
  grep -rhoE '"[A-Za-z_][A-Za-z0-9_.]{1,40}"' src/sluice/ops src/sluice/graph src/sluice/exec/pipeline.cc \
    src/sluice/core/dtype.cc | sort -u | sed 's/"/\\"/g; s/^/"/; s/$/"/'
  for t in '{' '}' '[' ']' ':' ',' 'null' 'true' 'false' '-1' '1e308' '-0.0' '2147483648' \
           '9223372036854775807' '18446744073709551615' '1e-400'; do
    echo "\"$t\""
  done
} > "$out/fuzz_pipeline_json.dict"

for t in fuzz_image fuzz_jpeg_structure fuzz_file_list fuzz_pipeline_json; do
  printf '%-22s %5d seed files\n' "$t" "$(find "$out/$t/seed" -type f | wc -l)"
done
