// watchkeeper dashboard behaviour that htmx attributes cannot express. No inline script: the
// CSP allows only files from this origin.
(function () {
  'use strict';

  // Auto-refresh of a table must not clobber a row being edited or a selection in progress.
  document.addEventListener('htmx:beforeRequest', function (evt) {
    var elt = evt.detail.elt;
    if (!elt || !elt.hasAttribute('data-refresh')) return;
    var trigger = evt.detail.requestConfig && evt.detail.requestConfig.triggeringEvent;
    var scheduled = !trigger || trigger.type === 'every' || trigger.type === undefined;
    if (!scheduled) return;
    var busy =
      document.querySelector('tr.editing') ||
      document.querySelector('input[name="ids"]:checked') ||
      searchPending();
    if (busy) evt.preventDefault();
  });

  // A search typed but not yet sent (the box waits for a pause): the refresh would run the half
  // typed words and show their results over the ones about to come.
  function searchPending() {
    var box = document.getElementById('memory-search');
    var table = document.getElementById('memory-table');
    if (!box || !table) return false;
    return box.value.trim().slice(0, 2000) !== (table.getAttribute('data-q') || '');
  }

  // "/" jumps to the search box, unless the key is being typed into a field.
  document.addEventListener('keydown', function (evt) {
    if (evt.key !== '/' || evt.ctrlKey || evt.metaKey || evt.altKey) return;
    var t = evt.target;
    var typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName || ''));
    if (typing) return;
    var box = document.getElementById('memory-search');
    if (!box) return;
    evt.preventDefault();
    box.focus();
    box.select();
  });

  // The bulk action bar: shows the number selected; "select all" toggles the visible rows.
  function updateBulkBar() {
    var bar = document.getElementById('bulk-bar');
    if (!bar) return;
    var checked = document.querySelectorAll('input[name="ids"]:checked').length;
    bar.hidden = checked === 0;
    var count = document.getElementById('bulk-count');
    if (count) count.textContent = String(checked);
  }
  document.addEventListener('change', function (evt) {
    var t = evt.target;
    if (t && t.id === 'select-all') {
      document.querySelectorAll('input[name="ids"]').forEach(function (box) {
        box.checked = t.checked;
      });
    }
    if (t && (t.name === 'ids' || t.id === 'select-all')) updateBulkBar();
  });
  document.addEventListener('htmx:afterSettle', updateBulkBar);

  // Live log: keep the newest line in view while "follow" is on.
  document.addEventListener('htmx:sseMessage', function () {
    var log = document.getElementById('live-log');
    var follow = document.getElementById('follow');
    if (log && (!follow || follow.checked)) log.scrollTop = log.scrollHeight;
  });
})();
