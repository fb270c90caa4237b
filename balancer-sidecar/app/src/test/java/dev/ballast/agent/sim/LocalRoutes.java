package dev.ballast.agent.sim;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Routes on a plain Vert.x server on a free loopback port (no Quarkus), and GETs against them. */
public final class LocalRoutes implements AutoCloseable {
    private final Vertx vertx = Vertx.vertx();
    private final HttpClient http = HttpClient.newHttpClient();
    private final String url;

    public LocalRoutes(Consumer<Router> routes) throws Exception {
        Router router = Router.router(vertx);
        routes.accept(router);
        HttpServer server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").toCompletionStage()
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        url = "http://127.0.0.1:" + server.actualPort();
    }

    /** {@code http://127.0.0.1:<port>} */
    public String url() {
        return url;
    }

    /** GET {@code path} with this Authorization header's value (null: none). */
    public HttpResponse<String> get(String path, String authorization) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url + path));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
