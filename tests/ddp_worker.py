"""Run by test_distributed.py under torchrun: train a few steps, then save this rank's weights.

Usage: torchrun --nproc_per_node 2 tests/ddp_worker.py OUT_DIR [worker options] [explorer.training.train flags...]
Writes OUT_DIR/rank{r}.safetensors holding "initial.*" (after DDP's broadcast) and "final.*" tensors.
Worker options:
    --stop-on-rank R        only rank R calls `Trainer.stop()`, at its first event (as a signal might)
    --unstable-tokenizer    each process's SentencePiece run gives a different vocabulary, as it does
                            for corpora larger than SentencePiece's input_sentence_size
"""

import hashlib
import os
import sys
from pathlib import Path

import torch.distributed as dist
from safetensors.torch import save_file

from explorer.model.tokenizer import Tokenizer
from explorer.training.train import build_trainer, parse_args


def unstable_tokenizer(rank: int) -> None:
    """Make Tokenizer.train ask for a rank-dependent vocabulary size."""
    train = Tokenizer.train.__func__

    def train_per_process(cls, sentences, vocab_size, model_type="bpe"):
        return train(cls, sentences, vocab_size - 10 * rank, model_type)

    Tokenizer.train = classmethod(train_per_process)


def main(argv: list[str]) -> int:
    out, argv = Path(argv[0]), argv[1:]
    stop_rank = None
    while argv[:1] in (["--stop-on-rank"], ["--unstable-tokenizer"]):
        if argv[0] == "--stop-on-rank":
            stop_rank, argv = int(argv[1]), argv[2:]
        else:
            unstable_tokenizer(int(os.environ["RANK"]))
            argv = argv[1:]
    trainer = build_trainer(parse_args(argv), log=lambda _: None)
    initial = {f"initial.{k}": v.detach().clone() for k, v in trainer.model.state_dict().items()}
    events = []
    for event in trainer.run():
        events.append(event)
        if trainer.rank == stop_rank:
            trainer.stop()
    final = {f"final.{k}": v.detach().clone() for k, v in trainer.model.state_dict().items()}
    metadata = {
        "rank": str(trainer.rank),
        "world_size": str(trainer.world),
        "distributed": str(trainer.distributed),
        "step": str(trainer.step),
        "events": str(len(events)),
        "batches_per_epoch": str(len(trainer._epoch_batches())),
        "tokenizer_sha256": hashlib.sha256(trainer.tokenizer.model_proto).hexdigest(),
    }
    save_file(initial | final, str(out / f"rank{trainer.rank}.safetensors"), metadata=metadata)
    if trainer.distributed:  # together, as the training CLI does (a rank tearing gloo down early can abort)
        dist.barrier()
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
