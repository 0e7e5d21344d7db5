# Sourced by the evaluation scripts: DAVIS may name several DAVIS 2016 roots
# (separated by spaces), e.g. the two development roots; davis_root joins them.
#
#   davis_root WORK ROOT...   prints the root to read: ROOT itself when there is
#                             one, else WORK/davis, a root of symbolic links to
#                             every sequence of every ROOT (JPEGImages/480p and
#                             Annotations/480p), made anew each time.
# It fails, naming it, on a root without JPEGImages/480p and on a sequence name
# found in two roots.
davis_root() {
  local work=$1 root seq
  shift
  for root in "$@"; do
    if [[ ! -d $root/JPEGImages/480p ]]; then
      echo "no DAVIS data at $root (no JPEGImages/480p)" >&2
      return 1
    fi
  done
  if [[ $# -eq 1 ]]; then
    echo "$1"
    return 0
  fi
  local joined=$work/davis
  rm -rf "$joined"
  mkdir -p "$joined/JPEGImages/480p" "$joined/Annotations/480p"
  for root in "$@"; do
    root=$(cd "$root" && pwd)
    for seq in "$root"/JPEGImages/480p/*/; do
      seq=$(basename "$seq")
      if [[ -e $joined/JPEGImages/480p/$seq ]]; then
        echo "sequence $seq is in two DAVIS roots ($root and $(readlink "$joined/JPEGImages/480p/$seq"))" >&2
        return 1
      fi
      ln -s "$root/JPEGImages/480p/$seq" "$joined/JPEGImages/480p/$seq"
      if [[ -d $root/Annotations/480p/$seq ]]; then
        ln -s "$root/Annotations/480p/$seq" "$joined/Annotations/480p/$seq"
      fi
    done
  done
  echo "$joined"
}
