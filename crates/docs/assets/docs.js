// Renders the OpenAPI document named by #redoc's data-spec with Redoc, which
// is served beside this file: the page makes no request to another origin.
(function () {
  var element = document.getElementById("redoc");
  Redoc.init(
    element.dataset.spec,
    { expandResponses: "200,201", pathInMiddlePanel: true, hideDownloadButton: false },
    element
  );
})();
