package main

// The Example blocks of the commands' --help: the commands a user runs, in
// the order of the pipeline. SEQ is a sequence's frame folder, GT its ground
// truth (a *Def.dat or a DAVIS annotation folder). TestEveryCommandHasExamples
// checks that every command has one and that each line calls its own command.

const rootExample = `  densify doctor
  densify synth --out data --tracks
  densify run data/synth01 --out work            # the whole chain; work/report.md
  densify run ~/data/davis --split val --sequences blackswan --out work`

const doctorExample = `  densify doctor
  densify doctor --device cuda --threads 8`

const synthExample = `  densify synth --out data
  densify synth --out data --count 3 --frames 40 --objects 3 --tracks`

const trackExample = `  densify track --frames SEQ --out tracks.dat --vis tracks.png
  densify track --frames SEQ --out tracks.dat --flow farneback --stats stats.json`

const segmentExample = `  densify segment --tracks tracks.dat --frames SEQ --out seg   # seg/graph.txt, labels.txt, segment.json
  densify segment --frames SEQ --out seg --model costs.json --lifted`

const fitCostsExample = `  densify fit-costs --data ~/data/davis --out costs.json
  densify fit-costs --data ~/data/davis --out costs.json --fold-models folds   # one held-out model per sequence`

const multicutExample = `  densify multicut --graph seg/graph.txt --out labels.txt --json summary.json
  densify multicut --graph seg/graph.txt --out labels.txt --solver gaec
  densify multicut --graph seg/graph.txt --out labels.txt --thorough`

const uncertaintyExample = `  densify uncertainty --graph seg/graph.txt --labels seg/labels.txt --out u.csv
  densify uncertainty --graph seg/graph.txt --labels seg/labels.txt --out u.csv \
      --clusters clusters.csv --tracks seg/*Tracks*.dat --frames SEQ --heatmaps heat`

const sparsifyExample = `  densify sparsify --graph seg/graph.txt --labels seg/labels.txt --tracks seg/*Tracks*.dat --gt GT --out sp
  densify sparsify --dataset sequences.txt --out sp`

const nbestExample = `  densify nbest --graph seg/graph.txt --labels seg/labels.txt --n 10 --out nb
  densify nbest --graph seg/graph.txt --labels seg/labels.txt --tracks seg/*Tracks*.dat --n 10 --gt GT --out nb`

const evalExample = `  densify eval --gt GT --tracks seg/*Tracks*.dat
  densify eval --gt GT --masks masks --json dense.json
  densify eval --dataset sequences.txt --json all.json`

const prepareExample = `  densify prepare --frames SEQ --tracks seg/*Tracks*.dat --uncertainty u.csv --segment seg/segment.json --out set
  densify prepare --frames SEQ --tracks seg/*Tracks*.dat --uncertainty u.csv --segment seg/segment.json --out set --gt GT`

const trainExample = `  densify train --set set --out model
  densify train --set set --out model --variant uniform --seed 2
  densify train --set set --out model --resume
  densify train --set set --pseudo masks --init model/model.ckpt --out model-round1   # a self-training round on predict --prob's masks
  densify train ~/data/fbms --split Trainingset --out models   # one U-Net per sequence`

const predictExample = `  densify predict --model model/model.ckpt --frames SEQ --out masks --prob --overlay
  densify predict --model model/model.ckpt --frames SEQ --out masks --refine none --temporal 0
  densify predict --model model/model.ckpt --frames SEQ --out masks-half --cut-scale 0.5 --smooth 10`

const refineExample = `  densify refine --frames SEQ --prob masks/prob --out masks-band0.2 --band 0.2
  densify refine --frames SEQ --prob masks/prob --out masks-one-cut --cuts 1 --threads 2
  densify refine --frames SEQ --prob masks/prob --out masks-dense-crf --dense-crf 2`

const ablateExample = `  densify ablate ~/data/davis --split val --out work --oracle
  densify ablate ~/data/davis --split val --out work --factors 10,100,1000 --phis 0.005,0.02`

const runExample = `  densify run SEQ --out work
  densify run ~/data/davis --split val --sequences blackswan,cows --out work
  densify run ~/data/fbms --split Testset --out work --shard 0/4
  densify run ~/data/davis --split val --out work-half-cut --cut-scale 0.5 --smooth 10`

const reportExample = `  densify report work`

const slurmExample = `  densify slurm ~/data/davis --split val --out /shared/davis-val --cpus-per-task 8 --time 4:00:00 --submit
  densify slurm ~/data/davis --split val --out /shared/davis-val --command ablate --submit -- --seeds 5`

const decomposeExample = `  densify decompose --image IMG.jpg --gt GT.mat --out dec --graph
  densify decompose --images BSDS/images/val --gt-dir BSDS/groundTruth/val --out dec-val --workers 2`

const decomposeFitExample = `  densify decompose fit --train-images BSDS/images/train --train-gt BSDS/groundTruth/train \
      --val-images BSDS/images/val --val-gt BSDS/groundTruth/val --out boundary.json`
