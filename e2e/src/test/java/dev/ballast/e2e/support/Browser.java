package dev.ballast.e2e.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

/**
 * Headless Debian chromium driven by Debian's chromedriver (packages {@code chromium} and {@code chromium-driver}, which
 * {@code .ci/run} installs): the driver's path is given, so Selenium never looks for or downloads one.
 */
public final class Browser implements AutoCloseable {
  public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private final ChromeDriver driver;

  public Browser() {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      throw new IllegalStateException("the browser tests need Debian's chromium and chromedriver: apt-get install -y"
          + " --no-install-recommends chromium chromium-driver (.ci/run does)");
    }
    System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, CHROMEDRIVER.toString());
    var options = new ChromeOptions().setBinary(CHROMIUM.toFile())
        .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
            "--window-size=1400,1300", "--hide-scrollbars");
    options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
    driver = new ChromeDriver(ChromeDriverService.createDefaultService(), options);
    driver.manage().window().setSize(new Dimension(1400, 1300));
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** The console's errors since the last call (reading drains them). */
  public List<String> consoleErrors() {
    return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).map(LogEntry::getMessage).toList();
  }

  /** Saves a screenshot of the page under each of {@code paths}. */
  public void screenshot(Path... paths) throws IOException {
    byte[] png = driver.getScreenshotAs(OutputType.BYTES);
    for (Path p : paths) {
      Files.createDirectories(p.getParent());
      Files.write(p, png);
    }
  }

  /** Saves a screenshot of the whole page, the window made as tall as the page for it, under each of {@code paths}. */
  public void fullPageScreenshot(Path... paths) throws IOException {
    long height = ((Number) driver.executeScript("return document.documentElement.scrollHeight")).longValue();
    driver.manage().window().setSize(new Dimension(1400, (int) Math.min(6000, height + 140)));
    try {
      screenshot(paths);
    } finally {
      driver.manage().window().setSize(new Dimension(1400, 1300));
    }
  }

  @Override
  public void close() {
    driver.quit();
  }
}
