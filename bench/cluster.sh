#!/usr/bin/env bash
# bench/run cluster: molshot thumbnails --shard under a real Slurm. Installs Debian's slurm-wlm and
# munge where missing, starts munged, slurmctld and slurmd on 127.0.0.1 (one node, this machine's
# cores, configuration in a temporary folder), submits `molshot thumbnails --shard
# $SLURM_ARRAY_TASK_ID/N` as an `sbatch --array=1-N` job, waits for it, and checks that the
# shards' indexes together hold every input exactly once and that their pictures are the bytes a
# single run on this machine writes; then `molshot images --shard` as a second array job, whose
# files must be those of one run, byte for byte. Prints the job ids and each shard's count. Skips (exit 0,
# saying why) where Slurm cannot be installed or started here; fails (exit 1) on a wrong answer.
#   bench/cluster.sh MOLSHOT INPUT_FOLDER [N]
set -uo pipefail
molshot=$(realpath "$1"); input=$(realpath "$2"); shards=${3:-4}
skip() { echo "cluster: skipped: $*"; exit 0; }
fail() { echo "cluster: FAILED: $*"; exit 1; }
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo -n"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "cluster: installing slurm-wlm and munge from Debian" >&2
  (export DEBIAN_FRONTEND=noninteractive; $sudo apt-get update -qq && $sudo apt-get install -y -qq slurm-wlm munge) >/dev/null 2>&1 \
    || skip "slurm-wlm could not be installed (no root or no network)"
fi
work=$(mktemp -d /tmp/molshot-cluster-XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

# munge: a key, and the daemon on a socket of our own.
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 700 "$work/munge"; chmod 400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
munged --force --key-file "$work/munge/munge.key" --socket "$socket" --pid-file "$work/munge/munged.pid" \
  --log-file "$work/munge/munged.log" --seed-file "$work/munge/seed" 2>"$work/munge/start.log" \
  || skip "munged did not start: $(cat "$work/munge/start.log")"
pids+=("$(cat "$work/munge/munged.pid" 2>/dev/null)")

cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/log"
cat > "$work/slurm.conf" <<CONF
ClusterName=molshot
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
SlurmctldPort=$((20000 + RANDOM % 20000))
SlurmdPort=$((40000 + RANDOM % 20000))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 & pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 & pids+=($!)
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1)
  [ "$state" = "idle" ] && break
  sleep 1
done
[ "$state" = "idle" ] || skip "the Slurm node did not come up (state '${state:-none}'): $(tail -3 "$work/log/slurmd.log" "$work/log/slurmctld.log" 2>/dev/null | tr '\n' ' ')"

out="$work/thumbs"; single="$work/single"
mkdir -p "$out"
cat > "$work/job.sh" <<JOB
#!/bin/sh
exec "$molshot" thumbnails "$input" -o "$out" --size 96 --shard \${SLURM_ARRAY_TASK_ID}/$shards
JOB
chmod 755 "$work/job.sh"
submitted=$(sbatch --parsable --array=1-$shards --cpus-per-task=1 --output="$work/log/task-%a.out" --wait "$work/job.sh" 2>"$work/log/sbatch.err")
status=$?
job=${submitted%%;*}
echo "cluster: Slurm job $job, array 1-$shards, exit $status"
[ -n "$job" ] || fail "sbatch did not take the job: $(cat "$work/log/sbatch.err")"
[ $status -eq 0 ] || fail "the array job failed: $(cat "$work"/log/task-*.out | tail -5)"
"$molshot" thumbnails "$input" -o "$single" --size 96 >/dev/null || fail "the single run failed"
python3 - "$out" "$single" "$shards" <<'PY' || exit 1
import json, os, sys, collections
out, single, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen = collections.Counter()
for k in range(1, n + 1):
    path = os.path.join(out, f"index-{k}-of-{n}.jsonl")
    rows = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
    print(f"cluster: shard {k}/{n}: {len(rows)} inputs")
    for r in rows: seen[r["source"]] += 1
whole = [json.loads(l) for l in open(os.path.join(single, "index.jsonl"))]
sources = [r["source"] for r in whole]
twice = [s for s, c in seen.items() if c > 1]
missing = [s for s in sources if s not in seen]
extra = [s for s in seen if s not in set(sources)]
pngs = lambda d: sorted(f for f in os.listdir(d) if f.endswith(".png"))
differ = [f for f in pngs(single) if not os.path.exists(os.path.join(out, f)) or open(os.path.join(out, f), "rb").read() != open(os.path.join(single, f), "rb").read()]
print(f"cluster: {len(sources)} inputs, {sum(seen.values())} in the shards' indexes, {len(pngs(out))} pictures from the shards, {len(pngs(single))} from one run")
if twice or missing or extra or differ or len(pngs(out)) != len(pngs(single)):
    print(f"cluster: FAILED: twice {twice[:3]}, missing {missing[:3]}, extra {extra[:3]}, different {differ[:3]}")
    sys.exit(1)
print("cluster: ok: every input in exactly one shard, the same bytes as one run")
PY

# The same for entry image sets: `molshot images --shard` as a second array job, against one run.
# Entries by the ID each file names: a folder holding two files of one entry (1crn.pdb and 1CRN.cif)
# draws it once, from either, so the list keeps one file an entry.
images="$work/images"; images_single="$work/images-single"; entries="$work/entries.txt"
mkdir -p "$images"
ls "$input" | grep -v -x -i '1crn.cif' | sed "s|^|$input/|" > "$entries"
cat > "$work/images.sh" <<JOB
#!/bin/sh
exec "$molshot" images "$entries" "$images" --size 96 --type entry,ligand,bfactor --shard \${SLURM_ARRAY_TASK_ID}/$shards
JOB
chmod 755 "$work/images.sh"
submitted=$(sbatch --parsable --array=1-$shards --cpus-per-task=1 --output="$work/log/images-%a.out" --wait "$work/images.sh" 2>"$work/log/sbatch-images.err")
status=$?
echo "cluster: Slurm job ${submitted%%;*} (images), array 1-$shards, exit $status"
[ $status -eq 0 ] || fail "the images array job failed: $(cat "$work"/log/images-*.out | tail -5)"
"$molshot" images "$entries" "$images_single" --size 96 --type entry,ligand,bfactor >/dev/null || fail "the single images run failed"
python3 - "$images" "$images_single" <<'PY' || exit 1
import os, sys
sharded, single = sys.argv[1], sys.argv[2]
a, b = sorted(os.listdir(sharded)), sorted(os.listdir(single))
differ = [f for f in b if f in a and open(os.path.join(sharded, f), "rb").read() != open(os.path.join(single, f), "rb").read()]
entries = [f for f in b if f.endswith(".json") and not f.endswith(".caption.json")]
print(f"cluster: images: {len(entries)} entries, {len(a)} files from the shards, {len(b)} from one run")
if a != b or differ or not entries:
    print(f"cluster: FAILED: images missing {sorted(set(b) - set(a))[:3]}, extra {sorted(set(a) - set(b))[:3]}, different {differ[:3]}")
    sys.exit(1)
print("cluster: ok: the sharded image sets are the files of one run, byte for byte")
PY
