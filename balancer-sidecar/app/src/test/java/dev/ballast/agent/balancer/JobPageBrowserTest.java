package dev.ballast.agent.balancer;

import dev.ballast.agent.dashboard.AccessReview;
import dev.ballast.agent.dashboard.DashboardHttp;
import dev.ballast.agent.dashboard.ViewerGate;
import dev.ballast.agent.sim.LocalRoutes;
import dev.ballast.agent.sim.TestWorlds;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.planner.load.LoadHistory;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.contracts.plan.PlanVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The job page in Debian's headless chromium, without a cluster: the real routes and assets, a document of 60 layers x
 * 256 experts built by {@link JobPageJson}, people decided by a stand-in for the API server. Measures the render time
 * (docs/dashboard.md); the live job on the real control plane: e2e DashboardTest.
 */
class JobPageBrowserTest {
    static final DashboardJson.Identity ID = new DashboardJson.Identity("olmoe", "ml", "b-1");
    static final AtomicReference<String> PAGE = new AtomicReference<>();
    static LocalRoutes routes;
    static String url;
    static ChromeDriver chrome;

    @BeforeAll
    static void start() throws Exception {
        PAGE.set(page("1.4"));
        AccessReview review = (token, ns, job) -> token.equals("viewer-token")
                ? new AccessReview.Answer(true, "alice", true, "")
                : new AccessReview.Answer(true, "mallory", false, "");
        routes = new LocalRoutes(router -> new DashboardHttp(PAGE::get,
                new ViewerGate(review, "ml", "olmoe", System::nanoTime)).register(router));
        url = routes.url() + "/dashboard/";
        // Debian's packages (.ci/run installs them); the driver's path is given, so Selenium never downloads one
        System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, "/usr/bin/chromedriver");
        ChromeOptions options = new ChromeOptions().setBinary(new File("/usr/bin/chromium"));
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1300");
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        chrome = new ChromeDriver(options);
    }

    @AfterAll
    static void stop() throws Exception {
        if (chrome != null) {
            chrome.quit();
        }
        routes.close();
    }

    /** A page of a 2-worker world of 8 GPUs with Zipf-skewed loads, the plan every rank adopted being {@code plan}. */
    static String page(String plan) {
        WorldDocument world = TestWorlds.world("olmoe", 1, 4, TestWorlds.spec(60, 256, 8, 8, 1, 20),
                TestWorlds.worker("olmoe", 0, 0, "gpu-r0-n0", "r0-d0", "r0"),
                TestWorlds.worker("olmoe", 1, 1, "gpu-r0-n1", "r0-d0", "r0"));
        ModelLoads step = new ModelLoads(60, 1, 1, 256);
        Random random = new Random(11);
        for (int l = 0; l < 60; l++) {
            for (int e = 0; e < 256; e++) {
                step.counts(l, 0)[e] = Math.round(65536 * Math.pow(random.nextInt(256) + 1, -1.2));
            }
        }
        LoadHistory history = new LoadHistory(0.5);
        history.observe(400, step);
        List<PageHistory.Point> points = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            points.add(new PageHistory.Point(1_000_000 + i * 1000L, 1, 280 + i, 2.1 + 0.05 * Math.sin(i / 4.0),
                    i < 20 ? 2.1 : 1.08, i < 20 ? 0 : 1.05, i < 20 ? "" : "1." + (1 + i / 40),
                    new BalancerStatus.Measured(2.1, i < 20 ? Double.NaN : 1.08, 0.41, i < 20 ? Double.NaN : 0.27,
                            0.18, i < 20 ? Double.NaN : 0.17)));
        }
        // the plan in use: each layer's four hottest experts copied to the two GPUs after their home
        Parallelism par = new Parallelism(8, 1, 1);
        LayerPlacement[][] layers = new LayerPlacement[60][1];
        for (int l = 0; l < 60; l++) {
            long[] counts = step.counts(l, 0);
            Integer[] order = new Integer[256];
            Arrays.setAll(order, e -> e);
            Arrays.sort(order, (a, b) -> Long.compare(counts[b], counts[a]));
            List<List<Integer>> gpus = new ArrayList<>();
            for (int g = 0; g < 8; g++) {
                gpus.add(new ArrayList<>());
                for (int e = 32 * g; e < 32 * (g + 1); e++) {
                    gpus.get(g).add(e);
                }
            }
            for (int k = 0; k < 4; k++) {
                int e = order[k];
                gpus.get((e / 32 + 1) % 8).add(e);
                gpus.get((e / 32 + 2) % 8).add(e);
            }
            layers[l][0] = LayerPlacement.of(256, gpus.stream().map(g -> g.stream().mapToInt(i -> i).toArray())
                    .toArray(int[][]::new));
        }
        Plan inUse = new Plan(new PlanVersion(1, Long.parseLong(plan.substring(2))), 380, Mode.REPLICATE, "ballast", 256, par, layers);
        return JobPageJson.of(ID, world, new JobPageJson.Activity(true, "", 2, 4, plan),
                new BalancerStatus(plan, 9, 380, 2.13, 1.04, 1.93, null), history,
                new JobPageJson.GpuView(new long[] {150_000, 90_000, 60_000, 120_000, 80_000, 140_000, 50_000, 70_000},
                        new long[] {96_000, 95_000, 94_000, 97_000, 94_000, 96_000, 95_000, 93_000}), points,
                new JobPageJson.InUse(par, 60, 256, inUse, plan));
    }

    static long renders() {
        return ((Number) chrome.executeScript("return window.ballastDashboard.renders")).longValue();
    }

    static void signIn(String token) {
        chrome.get(url);
        chrome.executeScript("sessionStorage.clear()");
        chrome.navigate().refresh();
        consoleErrors(); // what the first load did with a previous test's token
        chrome.executeScript("document.getElementById('token').value = arguments[0]", token);
        chrome.findElement(By.cssSelector("#sign-in-form button")).click();
    }

    static List<String> consoleErrors() {
        return chrome.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).map(LogEntry::getMessage).toList();
    }

    @Test
    void aPersonWithoutTheRightIsToldWhichRightIsMissing() {
        signIn("someone-elses-token");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(chrome.findElement(By.id("auth-message"))
                .getText()).isEqualTo("mallory may not get trainingjobs.ballast.dev/olmoe in namespace ml: the job's"
                + " page needs that right (RBAC)"));
        assertThat(chrome.findElement(By.id("page")).isDisplayed()).isFalse();
        consoleErrors(); // the refused request's 403 is logged as an error; drained here
    }

    @Test
    void theSixtyBy256HeatmapRendersWithinASecondAndANewPlanShowsWithoutReloading() throws Exception {
        signIn("viewer-token");
        await().atMost(Duration.ofSeconds(10)).until(() -> renders() >= 1);
        assertThat(chrome.findElement(By.id("viewer")).getText()).isEqualTo("signed in as alice");

        List<Double> firstRenders = new ArrayList<>();
        for (int i = 0; i < 5; i++) { // fresh loads with the token in the tab: navigation start to the page drawn
            chrome.navigate().refresh();
            await().atMost(Duration.ofSeconds(10)).until(() -> renders() >= 1);
            firstRenders.add(((Number) chrome.executeScript("return window.ballastDashboard.firstRenderedAt"))
                    .doubleValue());
        }
        double drawing = ((Number) chrome.executeScript("return window.ballastDashboard.lastRenderMillis")).doubleValue();
        assertThat(chrome.executeScript("const c = document.getElementById('heatmap'); return c.width + 'x' + c.height"))
                .as("experts x layers").isEqualTo("256x60");
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/dashboard-render.txt"), "60 x 256 heatmap, headless chromium: navigation"
                + " start to the page drawn " + firstRenders + " ms; drawing alone " + drawing + " ms\n");
        assertThat(firstRenders).as("ms from navigation start to the page drawn").allSatisfy(
                ms -> assertThat(ms).isLessThanOrEqualTo(1000));

        assertThat(chrome.findElement(By.id("plan-version")).getText()).isEqualTo("1.4");
        chrome.executeScript("window.notReloaded = true");
        PAGE.set(page("1.5"));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(chrome.findElement(By.id("plan-version")).getText()).isEqualTo("1.5"));
        assertThat(chrome.executeScript("return window.notReloaded === true")).as("the same document").isEqualTo(true);
        assertThat(chrome.findElement(By.id("imbalance-before")).getText()).isEqualTo("2.130");
        assertThat(chrome.findElements(By.cssSelector("#world tbody tr"))).hasSize(2);
        assertThat(consoleErrors()).as("console errors").isEmpty();
        // the placement view: the layer with the most replicas first, then the one a heatmap row's click picks
        assertThat(chrome.executeScript("return window.ballastDashboard.placement.gpus")).isEqualTo(8L);
        assertThat(chrome.findElements(By.cssSelector("#topology .domain"))).hasSize(1);
        assertThat(chrome.findElements(By.cssSelector("#topology .gpu"))).hasSize(8);
        assertThat(chrome.findElements(By.cssSelector("#topology .chip.extra"))).as("4 hot experts x 2 replicas")
                .hasSize(8);
        assertThat(chrome.findElements(By.cssSelector("#topology .chip:not(.extra)"))).hasSize(256);
        assertThat(chrome.findElements(By.cssSelector("#topology .chip.hot"))).as("the 8 hottest, each copy")
                .hasSizeGreaterThanOrEqualTo(8);
        new org.openqa.selenium.interactions.Actions(chrome).moveToElement(chrome.findElement(By.id("heatmap")), 0,
                -chrome.findElement(By.id("heatmap")).getSize().getHeight() / 2 + 2).click().perform();
        assertThat(chrome.findElement(By.id("layer")).getAttribute("value")).as("the top row: layer 0").isEqualTo("0");
        assertThat(chrome.findElement(By.id("step-now")).getText()).isEqualTo("270 ms step · 170 ms compute (plans)");
        assertThat(consoleErrors()).as("console errors").isEmpty();
        long height = (Long) chrome.executeScript("return document.documentElement.scrollHeight");
        chrome.manage().window().setSize(new org.openqa.selenium.Dimension(1400, (int) height + 140));
        Files.write(Path.of("target/dashboard-job-page.png"), chrome.getScreenshotAs(OutputType.BYTES));
    }
}
