/*
 * Suggested questions for a product detail page (PDP), from the assistant API's public
 * PDP endpoints (no API key; CORS). Drop it into a product page:
 *
 *   <div id="pdp-questions"></div>
 *   <script src="pdp-questions.js" defer
 *           data-api-base="https://assistant.example.com"
 *           data-organization-id="YOUR-ORGANIZATION-ID"></script>
 *
 * The page is identified by its <link rel="canonical"> (else location.href); the server
 * canonicalizes it (tracking parameters, fragment, trailing slash do not matter).
 * 1. GET  /v1/knowledge/pdp-questions/{organizationId}/public?url=...  -> the stored set
 *    (cacheable: the browser revalidates it with its ETag).
 * 2. On 404 only: POST /v1/knowledge/pdp-questions/public/get-questions -> a set generated
 *    from the catalog product at that URL, or null when the catalog has no such product.
 * Each question becomes a button; a click dispatches a "pdp-question" event on the container
 * ({detail: {text, url}}) for the shop's chat widget to send as a message with currentUrl.
 */
(function () {
  "use strict";

  var script = document.currentScript;

  function config() {
    // Query parameters win, so the demo page works against any server without editing it.
    var query = new URLSearchParams(window.location.search);
    var data = script ? script.dataset : {};
    return {
      apiBase: (query.get("api") || data.apiBase || "").replace(/\/+$/, ""),
      organizationId: query.get("org") || data.organizationId || "",
      target: data.target || "pdp-questions",
    };
  }

  function pageUrl() {
    var canonical = document.querySelector('link[rel="canonical"]');
    return canonical && canonical.href ? canonical.href : window.location.href;
  }

  async function fetchQuestionSet(cfg, url) {
    var getUrl =
      cfg.apiBase + "/v1/knowledge/pdp-questions/" + encodeURIComponent(cfg.organizationId) +
      "/public?url=" + encodeURIComponent(url);
    var response = await fetch(getUrl, { headers: { Accept: "application/json" } });
    if (response.ok) {
      return { set: await response.json(), via: "get" };
    }
    if (response.status !== 404) {
      throw new Error("GET answered " + response.status);
    }
    var body = await response.json();
    if (body.message !== "No question set found for this URL") {
      throw new Error(body.message); // unknown organization
    }
    response = await fetch(cfg.apiBase + "/v1/knowledge/pdp-questions/public/get-questions", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify({ url: url, organizationId: cfg.organizationId }),
    });
    if (!response.ok) {
      throw new Error("POST answered " + response.status);
    }
    return { set: await response.json(), via: "post" }; // null: no catalog product here
  }

  function render(container, questionSet, url) {
    container.textContent = "";
    var questions = (questionSet && questionSet.questions) || [];
    if (!questions.length) {
      container.dataset.state = "empty";
      return;
    }
    var heading = document.createElement("h2");
    heading.textContent = "Questions shoppers ask";
    container.appendChild(heading);
    var list = document.createElement("div");
    list.className = "pdp-question-list";
    questions
      .slice()
      .sort(function (a, b) { return a.rank - b.rank; })
      .forEach(function (question) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "pdp-question";
        button.dataset.rank = String(question.rank);
        button.dataset.questionId = question.id;
        button.textContent = question.text;
        button.addEventListener("click", function () {
          container.dispatchEvent(
            new CustomEvent("pdp-question", { bubbles: true, detail: { text: question.text, url: url } })
          );
        });
        list.appendChild(button);
      });
    container.appendChild(list);
    container.dataset.state = "ready";
  }

  async function start() {
    var cfg = config();
    var container = document.getElementById(cfg.target);
    if (!container) {
      return;
    }
    if (!cfg.apiBase || !cfg.organizationId) {
      container.dataset.state = "error";
      container.dataset.error = "set data-api-base and data-organization-id";
      return;
    }
    container.dataset.state = "loading";
    var url = pageUrl();
    try {
      var result = await fetchQuestionSet(cfg, url);
      container.dataset.via = result.via;
      render(container, result.set, url);
    } catch (error) {
      // A refused origin (CORS) surfaces here as a TypeError: the page simply shows no questions.
      container.dataset.state = "error";
      container.dataset.error = String((error && error.message) || error);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
