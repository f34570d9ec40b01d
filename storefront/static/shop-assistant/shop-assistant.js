/*
 * <shop-assistant>: the shopping assistant's chat widget, a dependency-free web component.
 *
 * One tag on any page of the shop (docs/api.md, "Shop front-ends"):
 *
 *   <script src="https://ASSISTANT/static/shop-assistant/shop-assistant.js" defer
 *           data-session-url="/assistant-session"></script>
 *
 * adds a chat launcher to the page; or place the element where the chat belongs:
 *
 *   <shop-assistant session-url="/assistant-session" open></shop-assistant>
 *
 * `session-url` is an endpoint of the shop's own backend answering {chatId, token}: it creates
 * a chat and mints a client token for it with the shop's API key, which never reaches the
 * browser (examples/widget-session/ shows it in a few lines). The widget then talks to the
 * assistant with the token only: the chat's event stream (EventSource, which reconnects with
 * Last-Event-ID) shows replies as they are written; the reply itself (products, suggestions)
 * comes from POST .../messages, retried with the same Idempotency-Key if the connection drops.
 *
 * Attributes: session-url, api-base (default: where this script came from), page-url (default:
 * the page's <link rel="canonical">, else its address), open, heading, placeholder, locale.
 * Styling: CSS custom properties --shop-assistant-accent, -accent-text, -background, -text,
 * -muted, -border, -radius, -font, -width, -z-index (set them on the element or :root).
 * Events: listens for "pdp-question" on the document ({detail: {text}}) and sends the text.
 * Prices: customElements.get("shop-assistant").formatPrice(amount, currency[, locale]) formats
 * a price as the product cards do, so the shop's own prices can match them.
 */
(function () {
  "use strict";

  var script = document.currentScript;
  var SCRIPT_ORIGIN = script && script.src ? new URL(script.src, location.href).origin : "";
  var SESSION_KEY = "shop-assistant:session:";
  var POST_ATTEMPTS = 8; // about half a minute of retries with backoff

  var STYLE = [
    ":host{--accent:var(--shop-assistant-accent,#1f5eff);--accent-text:var(--shop-assistant-accent-text,#fff);",
    "--bg:var(--shop-assistant-background,#fff);--fg:var(--shop-assistant-text,#1d2433);",
    "--muted:var(--shop-assistant-muted,#5b6577);--border:var(--shop-assistant-border,#d9dee7);",
    "--radius:var(--shop-assistant-radius,12px);--width:var(--shop-assistant-width,380px);",
    "font-family:var(--shop-assistant-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif);",
    "font-size:15px;line-height:1.4;color:var(--fg)}",
    ":host([hidden]){display:none}",
    ".launcher{position:fixed;right:16px;bottom:16px;z-index:var(--shop-assistant-z-index,2147483000);",
    "border:0;border-radius:999px;padding:12px 18px;background:var(--accent);color:var(--accent-text);",
    "font:inherit;font-weight:600;cursor:pointer;box-shadow:0 4px 16px rgba(0,0,0,.2)}",
    ".panel{display:flex;flex-direction:column;background:var(--bg);border:1px solid var(--border);",
    "border-radius:var(--radius);width:min(var(--width),calc(100vw - 16px));height:min(600px,calc(100vh - 96px));",
    "box-sizing:border-box;overflow:hidden}",
    ":host(:not([inline])) .panel{position:fixed;right:16px;bottom:76px;z-index:var(--shop-assistant-z-index,2147483000);",
    "box-shadow:0 8px 32px rgba(0,0,0,.18)}",
    ":host([inline]) .panel{width:100%;max-width:var(--width)}",
    ".panel[hidden]{display:none}",
    "header{display:flex;align-items:center;justify-content:space-between;padding:10px 14px;",
    "background:var(--accent);color:var(--accent-text);font-weight:600}",
    "header button{background:transparent;border:0;color:inherit;font-size:22px;cursor:pointer;line-height:1;",
    "min-width:40px;min-height:40px;margin:-8px -10px -8px 0;border-radius:8px}",
    ".log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:10px}",
    ".log>*{flex-shrink:0}",
    ".panel:focus{outline:none}",
    ".msg{max-width:85%;padding:8px 12px;border-radius:var(--radius);white-space:pre-wrap;overflow-wrap:anywhere}",
    ".user{align-self:flex-end;background:var(--accent);color:var(--accent-text)}",
    ".assistant{align-self:flex-start;background:#f2f4f8}",
    ".assistant.error{background:#fdecec;color:#8a1c1c}",
    ".status{font-size:13px;color:var(--muted)}",
    ".typing::after{content:'…';animation:blink 1s infinite}",
    "@keyframes blink{50%{opacity:.2}}",
    ".products{display:flex;gap:8px;overflow-x:auto;padding-bottom:4px;list-style:none;margin:0;padding-left:0}",
    ".card{flex:0 0 150px;border:1px solid var(--border);border-radius:var(--radius);overflow:hidden;background:var(--bg)}",
    ".card a{color:inherit;text-decoration:none;display:block}",
    ".card a:focus-visible{outline:2px solid var(--accent);outline-offset:-2px}",
    ".card img,.card .noimg{display:block;width:100%;height:110px;object-fit:cover;background:#eef1f5}",
    ".card .noimg{display:flex;align-items:center;justify-content:center;color:var(--muted)}",
    ".card .noimg svg{width:40px;height:40px}",
    ".card .body{padding:6px 8px;font-size:13px}",
    ".card .name{font-weight:600;display:-webkit-box;-webkit-line-clamp:2;-webkit-box-orient:vertical;overflow:hidden}",
    ".card .price{margin-top:2px}",
    ".card .stock{color:var(--muted)}",
    ".card .stock.in{color:#1d7a3a}",
    ".chips{display:flex;flex-wrap:wrap;gap:6px}",
    ".chip{border:1px solid var(--accent);color:var(--accent);background:var(--bg);border-radius:999px;",
    "padding:5px 10px;font:inherit;font-size:13px;cursor:pointer;text-align:left}",
    ".chip:hover,.chip:focus-visible{background:var(--accent);color:var(--accent-text);outline:none}",
    "form{display:flex;gap:6px;padding:10px;border-top:1px solid var(--border)}",
    "textarea{flex:1;resize:none;font:inherit;padding:8px;border:1px solid var(--border);border-radius:8px;",
    "min-height:38px;max-height:120px;box-sizing:border-box}",
    "textarea:focus-visible,button:focus-visible{outline:2px solid var(--accent);outline-offset:1px}",
    // The header is the accent colour: its button's ring is drawn in the header's text colour.
    "header button:focus-visible{outline-color:var(--accent-text);outline-offset:-4px}",
    "form button{border:0;border-radius:8px;padding:0 14px;background:var(--accent);color:var(--accent-text);font:inherit;cursor:pointer}",
    "form button:disabled{opacity:.5;cursor:default}",
    ".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}",
    "@media (max-width:480px){:host(:not([inline])) .panel{right:0;bottom:0;width:100vw;height:100dvh;",
    "border-radius:0;border:0}.launcher{right:12px;bottom:12px}}",
  ].join("");

  var AVAILABILITY = {
    in_stock: "In stock",
    out_of_stock: "Out of stock",
    preorder: "Pre-order",
    backorder: "Back-order",
    limited_availability: "Limited availability",
  };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else if (name.slice(0, 2) === "on") node.addEventListener(name.slice(2), attrs[name]);
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) {
      if (child) node.appendChild(child);
    });
    return node;
  }

  function noImage() {
    // The fallback of a missing or broken product image: a drawn bag, no font needed.
    var box = el("div", { class: "noimg", "aria-hidden": "true" });
    box.innerHTML =
      '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.5">' +
      '<path d="M5 8h14l-1 12H6L5 8z"/><path d="M9 8V6a3 3 0 0 1 6 0v2"/></svg>';
    return box;
  }

  function webUrl(value) {
    // Only http(s) addresses become links or images: nothing else from a catalog runs.
    try {
      var url = new URL(String(value));
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch (error) {
      return null;
    }
  }

  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return "k" + Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  function sleep(ms) {
    return new Promise(function (resolve) {
      setTimeout(resolve, ms);
    });
  }

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  class ShopAssistant extends HTMLElement {
    /* The page's locale: its <html lang>, else the browser's language. */
    static pageLocale() {
      return document.documentElement.lang || navigator.language || "en";
    }

    /* A price as the product cards show it: Intl.NumberFormat in its currency, for `locale`
     * (default: the page's). A page can format its own prices alike:
     * customElements.get("shop-assistant").formatPrice(24, "EUR") -> "€24.00" on an English page. */
    static formatPrice(amount, currency, locale) {
      var value = Number(amount);
      if (amount === null || amount === "" || !isFinite(value)) return "";
      try {
        return new Intl.NumberFormat(locale || ShopAssistant.pageLocale(), { style: "currency", currency: currency }).format(value);
      } catch (error) {
        return value.toFixed(2) + " " + (currency || "");
      }
    }

    connectedCallback() {
      if (this.shadowRoot) return;
      var root = this.attachShadow({ mode: "open" });
      var panelId = "shop-assistant-panel";
      this.launcher = el("button", {
        class: "launcher",
        type: "button",
        "aria-expanded": "false",
        "aria-controls": panelId,
        text: this.getAttribute("launcher-label") || "Ask our assistant",
        onclick: () => this.toggle(this.panel.hidden),
      });
      // Not announced as it streams (role=log would read every piece): the finished reply is
      // announced once, through the polite live region below.
      this.log = el("div", { class: "log", role: "log", "aria-live": "off", "aria-label": "Conversation" });
      this.live = el("div", { class: "sr", "aria-live": "polite", "aria-atomic": "true" });
      this.input = el("textarea", {
        rows: "1",
        "aria-label": "Your message",
        placeholder: this.getAttribute("placeholder") || "Ask about our products…",
        maxlength: "4000",
        onkeydown: (event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            this.submit();
          }
        },
      });
      this.sendButton = el("button", { type: "submit", text: "Send" });
      var form = el("form", {
        onsubmit: (event) => {
          event.preventDefault();
          this.submit();
        },
      }, [this.input, this.sendButton]);
      var close = el("button", {
        type: "button",
        "aria-label": "Close the assistant",
        text: "×",
        onclick: () => this.toggle(false),
      });
      var heading = el("span", { id: "heading", text: this.getAttribute("heading") || "Shopping assistant" });
      this.panel = el("section", {
        class: "panel",
        id: panelId,
        role: "region",
        "aria-labelledby": "heading",
        tabindex: "-1",
        onkeydown: (event) => {
          if (event.key === "Escape" && !this.hasAttribute("inline")) this.toggle(false);
        },
      }, [el("header", {}, [heading, this.hasAttribute("inline") ? null : close]), this.log, form]);
      root.appendChild(el("style", { text: STYLE }));
      if (!this.hasAttribute("inline")) root.appendChild(this.launcher);
      root.appendChild(this.panel);
      // Outside the panel: a reply that ends after the shopper closed the panel is still read out.
      root.appendChild(this.live);
      this.pending = null;
      this.lastEventId = "";
      this.onPdpQuestion = (event) => {
        if (event.detail && event.detail.text) {
          this.toggle(true);
          this.send(String(event.detail.text));
        }
      };
      document.addEventListener("pdp-question", this.onPdpQuestion);
      this.toggle(this.hasAttribute("open") || this.hasAttribute("inline"));
      this.ready = this.start();
    }

    disconnectedCallback() {
      if (this.events) this.events.close();
      document.removeEventListener("pdp-question", this.onPdpQuestion);
    }

    // --- configuration --------------------------------------------------------------------

    get apiBase() {
      return (this.getAttribute("api-base") || SCRIPT_ORIGIN || location.origin).replace(/\/+$/, "");
    }

    get pageUrl() {
      var given = this.getAttribute("page-url");
      if (given) return given;
      var canonical = document.querySelector('link[rel="canonical"]');
      return canonical && canonical.href ? canonical.href : location.href;
    }

    get locale() {
      return this.getAttribute("locale") || ShopAssistant.pageLocale();
    }

    toggle(open) {
      this.panel.hidden = !open;
      this.launcher.setAttribute("aria-expanded", String(open));
      if (open) this.input.focus();
      else if (!this.hasAttribute("inline")) this.launcher.focus();
    }

    // --- session: {chatId, token} from the shop's backend ----------------------------------

    async session(renew) {
      var url = this.getAttribute("session-url") || (script && script.dataset.sessionUrl);
      if (!url) throw new Error("shop-assistant needs a session-url");
      var stored = renew ? null : sessionStorage.getItem(SESSION_KEY + url);
      if (stored) {
        var known = JSON.parse(stored);
        if (!known.expiresAt || Date.parse(known.expiresAt) > Date.now() + 60000) return known;
      }
      // The same chat across a renewal: the backend mints a new token for it.
      var previous = this.chat ? { chatId: this.chat.chatId } : {};
      var response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(previous),
      });
      if (!response.ok) throw new Error("session endpoint answered " + response.status);
      var session = await response.json();
      if (!session || !session.chatId || !session.token) throw new Error("session without chatId/token");
      sessionStorage.setItem(SESSION_KEY + url, JSON.stringify(session));
      return session;
    }

    async api(path, options, retried) {
      var init = Object.assign({}, options || {});
      init.headers = Object.assign({ Accept: "application/json" }, init.headers || {}, {
        Authorization: "Bearer " + this.chat.token,
      });
      var response = await fetch(this.apiBase + path, init);
      if (response.status === 401 && !retried) {
        this.chat = await this.session(true);
        return this.api(path.replace(/\/chats\/[^/]+/, "/chats/" + this.chat.chatId), options, true);
      }
      var body = response.status === 204 ? null : await response.json().catch(function () {
        return null;
      });
      if (!response.ok) {
        throw new ApiError(response.status, (body && body.message) || "Request failed (" + response.status + ")");
      }
      return body;
    }

    async start() {
      try {
        this.chat = await this.session(false);
      } catch (error) {
        // Said, but not final: the next message asks the shop's backend again.
        this.say("assistant error", "The assistant is not available right now.");
        return;
      }
      this.listen();
      await this.loadHistory().catch(() => {});
      if (!this.log.querySelector(".user")) await this.showPageQuestions().catch(() => {});
    }

    // --- live text: the chat's event stream -------------------------------------------------

    listen() {
      var url = this.apiBase + "/v1/chats/" + encodeURIComponent(this.chat.chatId) +
        "/messages/events?token=" + encodeURIComponent(this.chat.token);
      if (this.lastEventId) url += "&lastEventId=" + encodeURIComponent(this.lastEventId);
      var events = new EventSource(url);
      this.events = events;
      events.onmessage = (message) => {
        if (message.lastEventId) this.lastEventId = message.lastEventId;
        try {
          this.onEvent(JSON.parse(message.data));
        } catch (error) {
          /* not an event of ours */
        }
      };
      events.onopen = () => {
        this.retryDelay = 3000;
        this.status("");
      };
      events.onerror = () => {
        // The browser reconnects by itself (with Last-Event-ID) after a dropped connection;
        // it gives up on an error status (an expired token): then renew and listen again,
        // less and less often while that keeps failing.
        if (events.readyState === EventSource.CLOSED && this.events === events) {
          this.status("Reconnecting…");
          var delay = this.retryDelay || 3000;
          this.retryDelay = Math.min(delay * 2, 60000);
          setTimeout(async () => {
            try {
              this.chat = await this.session(true);
            } catch (error) {
              /* keep the token; try again */
            }
            if (this.events === events) this.listen();
          }, delay);
        } else if (this.pending) {
          this.status("Reconnecting…");
        }
      };
    }

    onEvent(event) {
      var pending = this.pending;
      if (!pending || pending.done) {
        this.onOtherReply(event);
        return;
      }
      if (event.status === "failed" && (!event.toolName || event.toolName === "language_model")) {
        // The text so far is dropped: an interrupted reply is answered again from its start,
        // and after a language model's failure the catalog's reply starts over.
        pending.text = "";
        this.writeReply(pending, "");
        pending.bubble.classList.add("typing");
        return;
      }
      if (event.toolName) {
        if (event.status === "inProgress") this.status("Looking that up…");
        return;
      }
      if (event.status === "inProgress" && typeof event.content === "string") {
        this.status(""); // the text is coming: "Looking that up…" is over
        pending.text += event.content;
        this.writeReply(pending, pending.text);
      } else if (event.status === "completed" && typeof event.content === "string") {
        pending.text = event.content;
        this.writeReply(pending, pending.text);
      }
    }

    onOtherReply(event) {
      // A reply this tab did not ask for (another tab of the same chat, or one that was being
      // written when this page loaded) ended: show the conversation as stored. A reply this
      // tab already shows (its own, whose last event came after its POST's answer) is skipped.
      if (event.status !== "completed" || event.toolName || !this.historyLoaded) return;
      var shown = this.log.querySelectorAll(".msg.assistant");
      var last = shown.length ? shown[shown.length - 1].textContent : null;
      if (event.content !== last) this.redraw();
    }

    async redraw() {
      var items = await this.history().catch(() => null);
      if (!items || this.pending) return; // the shopper sent something meanwhile: theirs first
      this.log.replaceChildren();
      this.drawHistory(items);
    }

    // --- sending ---------------------------------------------------------------------------

    submit() {
      var text = this.input.value.trim();
      if (!text || this.pending) return;
      this.input.value = "";
      this.send(text);
    }

    async send(text) {
      if (this.pending) return;
      this.removeChips();
      this.say("user", text);
      var bubble = this.say("assistant typing", "");
      var pending = { key: newKey(), text: "", bubble: bubble, done: false };
      this.pending = pending;
      this.setBusy(true);
      try {
        // A message typed while the session is still being fetched waits for it.
        await this.ready;
        if (!this.chat) this.chat = await this.session(false).catch(() => null);
        if (!this.chat) throw new Error("The assistant is not available right now.");
        if (!this.events) this.listen();
        var reply = await this.post(text, pending.key);
        pending.done = true;
        this.writeReply(pending, reply.content);
        bubble.classList.remove("typing");
        this.announce(reply.content);
        if (reply.products && reply.products.length) this.log.appendChild(this.productCards(reply.products));
        if (reply.suggestions && reply.suggestions.length) this.log.appendChild(this.chips(reply.suggestions));
      } catch (error) {
        pending.done = true;
        bubble.classList.remove("typing");
        bubble.classList.add("error");
        bubble.textContent = error.message || "Something went wrong.";
        this.announce(bubble.textContent);
      } finally {
        this.pending = null;
        this.status("");
        this.setBusy(false);
        this.scrollDown();
      }
    }

    async post(text, key) {
      // A dropped connection or a server restart: the same Idempotency-Key again, so the
      // message is stored and answered once whatever happened to the first attempt.
      var delay = 500;
      for (var attempt = 1; ; attempt++) {
        try {
          return await this.api("/v1/chats/" + encodeURIComponent(this.chat.chatId) + "/messages", {
            method: "POST",
            headers: { "Content-Type": "application/json", "Idempotency-Key": key },
            body: JSON.stringify({ message: text, currentUrl: this.pageUrl }),
          });
        } catch (error) {
          var retry = !(error instanceof ApiError) || error.status === 502 || error.status === 503 || error.status === 504;
          if (!retry || attempt >= POST_ATTEMPTS) throw error;
          this.status("Reconnecting…");
          await sleep(delay);
          delay = Math.min(delay * 2, 5000);
        }
      }
    }

    // --- what the conversation shows -------------------------------------------------------

    async history() {
      var page = await this.api("/v1/chats/" + encodeURIComponent(this.chat.chatId) + "/messages?size=100");
      return (page && page.items) || [];
    }

    async loadHistory() {
      this.drawHistory(await this.history());
      this.historyLoaded = true;
    }

    drawHistory(items) {
      items.forEach((message, index) => {
        this.say(message.type === "user" ? "user" : "assistant", message.content);
        if (message.products && message.products.length) this.log.appendChild(this.productCards(message.products));
        if (index === items.length - 1 && message.suggestions && message.suggestions.length) {
          this.log.appendChild(this.chips(message.suggestions));
        }
      });
      this.scrollDown();
    }

    async showPageQuestions() {
      var chat = await this.api("/v1/chats/" + encodeURIComponent(this.chat.chatId));
      var response = await fetch(this.apiBase + "/v1/knowledge/pdp-questions/public/get-questions", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ organizationId: chat.organizationId, url: this.pageUrl }),
      });
      var set = response.ok ? await response.json() : null;
      if (set && set.questions && set.questions.length && !this.log.querySelector(".user")) {
        this.log.appendChild(this.chips(set.questions.map(function (q) { return q.text; }), "Questions about this product"));
      }
    }

    announce(text) {
      if (this.live.textContent !== text) {
        this.live.textContent = text;
        return;
      }
      // A reply worded like the previous one: emptied first, so it is a change to read out.
      this.live.textContent = "";
      setTimeout(() => {
        this.live.textContent = text;
      }, 100);
    }

    say(kind, text) {
      var bubble = el("div", { class: "msg " + kind, text: text });
      this.log.appendChild(bubble);
      this.scrollDown();
      return bubble;
    }

    writeReply(pending, text) {
      pending.bubble.textContent = text;
      if (text) pending.bubble.classList.remove("typing");
      this.scrollDown();
    }

    productCards(products) {
      var list = el("ul", { class: "products", "aria-label": "Recommended products" });
      products.forEach((product) => {
        var image = webUrl(product.image);
        var picture = image
          ? el("img", { src: image, alt: "", loading: "lazy" })
          : noImage();
        if (image) {
          picture.addEventListener("error", function () {
            picture.replaceWith(noImage());
          }, { once: true });
        }
        var body = el("div", { class: "body" }, [
          el("div", { class: "name", title: product.designation || "", text: product.designation || "" }),
          el("div", { class: "price", text: this.price(product) }),
          this.availability(product),
        ]);
        var href = webUrl(product.url);
        var inner = href ? el("a", { href: href, target: "_top" }, [picture, body]) : el("div", {}, [picture, body]);
        list.appendChild(el("li", { class: "card" }, [inner]));
      });
      return list;
    }

    price(product) {
      if (typeof product.price !== "number") return "";
      return ShopAssistant.formatPrice(product.price, product.currency, this.locale);
    }

    availability(product) {
      var stock = product.availability;
      if (!stock || !stock.status) return null;
      var label = AVAILABILITY[stock.status] || String(stock.status).replace(/_/g, " ");
      if (stock.status === "in_stock" && typeof stock.quantity === "number" && stock.quantity > 0 && stock.quantity <= 5) {
        label = "Only " + stock.quantity + " left";
      }
      return el("div", { class: "stock" + (stock.status === "in_stock" ? " in" : ""), text: label });
    }

    chips(texts, label) {
      var group = el("div", { class: "chips", role: "group", "aria-label": label || "Suggested questions" });
      texts.forEach((text) => {
        group.appendChild(el("button", {
          class: "chip",
          type: "button",
          text: text,
          onclick: (event) => {
            // The chip is removed, so the focus would fall to the page (and Escape with it):
            // the message box takes it, or on a touch screen the panel, which does not pop the
            // on-screen keyboard up over the reply.
            if (event.pointerType === "touch") this.panel.focus();
            else this.input.focus();
            this.send(text);
          },
        }));
      });
      return group;
    }

    removeChips() {
      this.log.querySelectorAll(".chips").forEach(function (group) {
        group.remove();
      });
    }

    status(text) {
      var line = this.log.querySelector(".status");
      if (!text) {
        if (line) line.remove();
        return;
      }
      if (!line) line = el("div", { class: "status", role: "status" });
      line.textContent = text;
      this.log.appendChild(line); // (again) below the latest message
      this.scrollDown();
    }

    setBusy(busy) {
      this.sendButton.disabled = busy;
      this.log.setAttribute("aria-busy", String(busy));
    }

    scrollDown() {
      this.log.scrollTop = this.log.scrollHeight;
    }
  }

  if (!customElements.get("shop-assistant")) customElements.define("shop-assistant", ShopAssistant);

  // One <script> tag is enough: with data-session-url it adds the widget to the page.
  if (script && script.dataset.sessionUrl && !document.querySelector("shop-assistant")) {
    var add = function () {
      var widget = document.createElement("shop-assistant");
      widget.setAttribute("session-url", script.dataset.sessionUrl);
      ["apiBase", "pageUrl", "heading", "locale"].forEach(function (name) {
        if (script.dataset[name]) widget.setAttribute(name.replace(/[A-Z]/g, function (c) { return "-" + c.toLowerCase(); }), script.dataset[name]);
      });
      document.body.appendChild(widget);
    };
    if (document.body) add();
    else document.addEventListener("DOMContentLoaded", add);
  }
})();
