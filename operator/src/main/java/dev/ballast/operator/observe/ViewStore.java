package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * An informer's item store that tells of each change as the informer makes it, on the informer's own thread: unlike
 * event handlers (called later, from a queue), a view kept from here is complete once the informer has synced, and
 * shows every object before any handler hears of it.
 */
final class ViewStore<T extends HasMetadata> implements ItemStore<T> {
  private final Map<String, T> items = new ConcurrentHashMap<>();
  private final BiConsumer<T, T> put;
  private final Consumer<T> removed;

  /** @param put told of each added or replaced object (the previous one, null when new; the new one) */
  ViewStore(BiConsumer<T, T> put, Consumer<T> removed) {
    this.put = put;
    this.removed = removed;
  }

  @Override
  public String getKey(T obj) {
    return Cache.metaNamespaceKeyFunc(obj);
  }

  @Override
  public T put(String key, T obj) {
    T previous = items.put(key, obj);
    put.accept(previous, obj);
    return previous;
  }

  @Override
  public T remove(String key) {
    T previous = items.remove(key);
    if (previous != null) removed.accept(previous);
    return previous;
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return items.values().stream();
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public T get(String key) {
    return items.get(key);
  }
}
