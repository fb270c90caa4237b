package dev.ballast.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.jse.JsePlatform;

/**
 * Runs the chart's Argo CD health check (charts/ballast/files/argocd/health.lua) the way Argo CD does:
 * the live object as the global {@code obj}, the script returning {@code {status, message}}.
 */
public final class ArgoHealth {
  /** What Argo CD would show. */
  public record Health(String status, String message) {}

  private final String script;

  public ArgoHealth(Path root) throws IOException {
    this.script = Files.readString(root.resolve("charts/ballast/files/argocd/health.lua"));
  }

  public Health of(GenericKubernetesResource resource) {
    Globals globals = JsePlatform.standardGlobals();
    globals.set("obj", toLua(Serialization.jsonMapper().valueToTree(resource)));
    LuaValue result = globals.load(script, "health.lua").call();
    return new Health(result.get("status").tojstring(), result.get("message").optjstring(""));
  }

  private static LuaValue toLua(JsonNode node) {
    if (node == null || node.isNull()) return LuaValue.NIL;
    if (node.isTextual()) return LuaValue.valueOf(node.asText());
    if (node.isBoolean()) return LuaValue.valueOf(node.asBoolean());
    if (node.isNumber()) return LuaValue.valueOf(node.asDouble());
    LuaTable table = new LuaTable();
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) table.set(i + 1, toLua(node.get(i)));
    } else {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        var e = it.next();
        table.set(e.getKey(), toLua(e.getValue()));
      }
    }
    return table;
  }
}
