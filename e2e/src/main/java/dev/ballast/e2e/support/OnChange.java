package dev.ballast.e2e.support;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** An informer handler that hands every added, updated or deleted object (the new state) to one consumer. */
public record OnChange<T>(Consumer<T> consumer) implements ResourceEventHandler<T> {
  @Override
  public void onAdd(T obj) {
    consumer.accept(obj);
  }

  @Override
  public void onUpdate(T old, T obj) {
    consumer.accept(obj);
  }

  @Override
  public void onDelete(T obj, boolean finalStateUnknown) {
    consumer.accept(obj);
  }
}
