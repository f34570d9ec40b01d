/* The demo shop's prices, formatted as the chat widget formats its product cards (the
 * widget's formatPrice: the page's locale, the product's currency). Each price is rendered as
 * <data class="money" value="24.00" data-currency="EUR">24.00 EUR</data>, which stays as it
 * is without JavaScript. */
customElements.whenDefined("shop-assistant").then(function () {
  var widget = customElements.get("shop-assistant");
  document.querySelectorAll("data.money[value][data-currency]").forEach(function (price) {
    var formatted = widget.formatPrice(price.value, price.dataset.currency);
    if (formatted) price.textContent = formatted;
  });
});
