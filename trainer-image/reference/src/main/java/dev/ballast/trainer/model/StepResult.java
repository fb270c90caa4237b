package dev.ballast.trainer.model;

import dev.ballast.trainer.moe.Routing;
import java.util.List;

/** One forward (and backward) pass: the mean loss and each layer's routing, whose counts are the measured loads. */
public record StepResult(double loss, List<Routing> routing) {
}
