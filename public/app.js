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
      document.querySelector('details.row-menu[open]') ||
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

  function typingIn(t) {
    return t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName || ''));
  }

  // The page's search box: the one marked data-search, else the first search field in main.
  function searchBox() {
    return (
      document.querySelector('[data-search]') ||
      document.getElementById('memory-search') ||
      document.querySelector('main input[type="search"]')
    );
  }

  function closeMenus(except) {
    document.querySelectorAll('details.row-menu[open]').forEach(function (d) {
      if (d !== except) d.open = false;
    });
  }

  document.addEventListener('keydown', function (evt) {
    if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
    // "/" jumps to the search box, unless the key is being typed into a field.
    if (evt.key === '/') {
      if (typingIn(evt.target)) return;
      var box = searchBox();
      if (!box) return;
      evt.preventDefault();
      box.focus();
      if (box.select) box.select();
      return;
    }
    if (evt.key !== 'Escape') return;
    // Esc cancels the inline edit (the one being typed in, else the open one unless another
    // field has the keyboard), else closes an open row menu, else the history panel.
    var t = evt.target;
    var editing =
      (t && t.closest && t.closest('.editing')) ||
      (!typingIn(t) && document.querySelector('.editing'));
    var cancel = editing && editing.querySelector('[data-cancel]');
    if (cancel) {
      evt.preventDefault();
      cancel.click();
      return;
    }
    var menu = document.querySelector('details.row-menu[open]');
    if (menu) {
      menu.open = false;
      var summary = menu.querySelector('summary');
      if (summary) summary.focus();
      return;
    }
    if (typingIn(t)) return;
    var panel = document.getElementById('history-panel');
    if (panel && panel.firstElementChild) panel.replaceChildren();
  });

  // Row menus: one open at a time; a click elsewhere or on one of its actions closes it.
  document.addEventListener(
    'toggle',
    function (evt) {
      var d = evt.target;
      if (d && d.matches && d.matches('details.row-menu') && d.open) closeMenus(d);
    },
    true,
  );
  document.addEventListener('click', function (evt) {
    var t = evt.target;
    var inMenu = t && t.closest && t.closest('details.row-menu');
    if (!inMenu) closeMenus(null);
    else if (t.closest('.menu button')) inMenu.open = false;
    // [data-close="id"] empties that panel (the memory history's close button).
    var closer = t && t.closest && t.closest('[data-close]');
    if (closer) {
      var target = document.getElementById(closer.getAttribute('data-close'));
      if (target) target.replaceChildren();
    }
    // The sidebar's menu button on narrow screens.
    var toggle = t && t.closest && t.closest('#nav-toggle');
    if (toggle) {
      var open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      document.body.classList.toggle('nav-open', open);
    }
  });

  // Sessions: a run's row opens and closes the list of its sessions; the ones open stay open
  // across the 5 s refresh of the rows.
  var openRuns = {};
  function showRun(id, open) {
    var list = document.getElementById('run-' + id + '-sessions');
    var toggle = document.querySelector('.run-toggle[data-run="' + id + '"]');
    if (!list || !toggle) return;
    list.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
  }
  document.addEventListener('click', function (evt) {
    var t = evt.target;
    var toggle = t && t.closest && t.closest('.run-toggle');
    if (!toggle) return;
    var id = toggle.getAttribute('data-run');
    openRuns[id] = toggle.getAttribute('aria-expanded') !== 'true';
    showRun(id, openRuns[id]);
  });
  document.addEventListener('htmx:afterSettle', function () {
    Object.keys(openRuns).forEach(function (id) {
      if (openRuns[id]) showRun(id, true);
    });
  });

  // On a phone, tables become stacked rows: each cell is labelled with its column's heading.
  function labelCells(root) {
    (root.querySelectorAll ? root : document).querySelectorAll('table').forEach(function (table) {
      var heads = table.querySelectorAll('thead th');
      if (heads.length === 0) return;
      var names = Array.prototype.map.call(heads, function (th) {
        return th.textContent.trim();
      });
      table.querySelectorAll('tbody tr').forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (td, i) {
          if (td.tagName === 'TD' && !td.hasAttribute('colspan') && names[i]) {
            td.setAttribute('data-label', names[i]);
          }
        });
      });
    });
  }
  document.addEventListener('DOMContentLoaded', function () {
    labelCells(document);
  });
  document.addEventListener('htmx:afterSettle', function () {
    labelCells(document);
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

  // A region fetched again while a session runs (#session-live) must not close a <details> the
  // reader opened (the system prompt), nor open one they closed: each one with an id keeps its
  // state across the swap.
  var keptDetails = null;
  document.addEventListener('htmx:beforeSwap', function (evt) {
    var target = evt.detail.target;
    keptDetails = null;
    if (!target || target.id !== 'session-live') return;
    keptDetails = {};
    target.querySelectorAll('details[id]').forEach(function (d) {
      keptDetails[d.id] = d.open;
    });
  });
  document.addEventListener('htmx:afterSwap', function () {
    if (!keptDetails) return;
    var kept = keptDetails;
    keptDetails = null;
    Object.keys(kept).forEach(function (id) {
      var d = document.getElementById(id);
      if (d && d.tagName === 'DETAILS' && d.open !== kept[id]) d.open = kept[id];
    });
  });

  // Live log: keep the newest line in view while "follow" is on, and have the rest of the page
  // (status, final response, events, memories) fetched again: at most once a second while lines
  // arrive, and once more when the session ends.
  var liveTimer = null;
  document.addEventListener('htmx:sseMessage', function () {
    var log = document.getElementById('live-log');
    var follow = document.getElementById('follow');
    if (log && (!follow || follow.checked)) log.scrollTop = log.scrollHeight;
    if (!document.getElementById('session-live') || liveTimer) return;
    liveTimer = setTimeout(function () {
      liveTimer = null;
      document.body.dispatchEvent(new window.CustomEvent('session-changed'));
    }, 1000);
  });
})();
