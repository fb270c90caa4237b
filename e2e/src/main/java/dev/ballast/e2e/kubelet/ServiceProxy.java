package dev.ballast.e2e.kubelet;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * What kube-proxy does for one Service with a cluster IP, on loopback: listens on the Service's
 * address and each of its ports, and forwards every new connection to a running pod the Service
 * selects, looked up at connect time. So a client keeps reaching the Service when its pod is replaced
 * (a balancer pod recreated by its ReplicaSet gets a new address). Numeric target ports only.
 */
final class ServiceProxy implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(ServiceProxy.class.getName());

  private final KubernetesClient client;
  private final Addresses addresses;
  private final String namespace;
  private final String name;
  private final List<ServerSocket> listeners = new ArrayList<>();
  private volatile boolean closed;

  ServiceProxy(KubernetesClient client, Addresses addresses, Service service, String ip) throws IOException {
    this.client = client;
    this.addresses = addresses;
    this.namespace = service.getMetadata().getNamespace();
    this.name = service.getMetadata().getName();
    for (ServicePort port : service.getSpec().getPorts()) {
      ServerSocket listener = new ServerSocket(port.getPort(), 50, InetAddress.getByName(ip));
      listeners.add(listener);
      int target = port.getTargetPort() != null && port.getTargetPort().getIntVal() != null
          ? port.getTargetPort().getIntVal() : port.getPort();
      Thread t = new Thread(() -> accept(listener, target), "proxy-" + name + "-" + port.getPort());
      t.setDaemon(true);
      t.start();
    }
  }

  private void accept(ServerSocket listener, int targetPort) {
    while (!closed) {
      try {
        Socket in = listener.accept();
        String backend = backend();
        if (backend == null) {
          in.close(); // no ready endpoint: the connection is refused, as with an empty Endpoints object
          continue;
        }
        Socket out;
        try {
          out = new Socket(backend, targetPort);
        } catch (IOException e) {
          // the pod runs but does not listen yet (a JVM starting): refuse, as kube-proxy's reset would,
          // instead of leaving the client on a connection that never answers
          in.close();
          throw e;
        }
        pipe(in, out);
        pipe(out, in);
      } catch (IOException e) {
        if (!closed) LOG.fine("service " + namespace + "/" + name + ": " + e.getMessage());
      }
    }
  }

  /** A running pod selected by the Service, by name for determinism. */
  private String backend() {
    Service svc = client.services().inNamespace(namespace).withName(name).get();
    return svc == null ? null : addresses.firstPod(svc, true);
  }

  private static void pipe(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        in.transferTo(out);
      } catch (IOException ignored) {
        // either side closed
      } finally {
        try {
          from.close();
          to.close();
        } catch (IOException ignored) {
          // already closed
        }
      }
    }, "proxy-pipe");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() {
    closed = true;
    for (ServerSocket s : listeners) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }
}
