from historyhub.lib import globs


def test_a_name_matches_a_glob_by_fnmatch_patterns():
    assert globs.matches("deploy_prod", ["deploy_*"], empty_matches_all=False)
    assert globs.matches("delete_user", ["deploy_*", "delete_?ser"], empty_matches_all=False)
    assert globs.matches("v2", ["v[0-9]"], empty_matches_all=False)


def test_a_name_that_matches_no_glob_does_not_match():
    assert not globs.matches("send_email", ["deploy_*", "delete_*"], empty_matches_all=True)


def test_the_whole_name_must_match():
    assert not globs.matches("redeploy_prod", ["deploy_*"], empty_matches_all=False)
    assert not globs.matches("deploy", ["deploy_*"], empty_matches_all=False)


def test_matching_is_case_sensitive():
    assert not globs.matches("Deploy_prod", ["deploy_*"], empty_matches_all=False)


def test_an_empty_list_matches_nothing_unless_the_caller_says_everything():
    assert not globs.matches("anything", [], empty_matches_all=False)
    assert globs.matches("anything", [], empty_matches_all=True)


def test_an_empty_name_matches_only_a_glob_that_takes_it():
    assert globs.matches("", ["*"], empty_matches_all=False)
    assert not globs.matches("", ["?*"], empty_matches_all=False)


def test_globs_are_read_once_from_any_iterable():
    assert globs.matches("b", (glob for glob in ["a", "b"]), empty_matches_all=False)
    assert not globs.matches("b", iter([]), empty_matches_all=False)
